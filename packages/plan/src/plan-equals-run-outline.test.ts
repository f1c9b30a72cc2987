/**
 * Plan = run for stage 4, the LLM deck outline: `xsb plan demo` prices decks' deckGenerationWorkList
 * over the demo's run sheet, the list generateDecksFromRunSheet runs, so on the demo sources the calls
 * per stage are equal for a model judge that reads images, one that does not, and the offline judge;
 * input tokens agree within the estimator's error, and a second plan reuses every deck the run made.
 */
import { cp, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RunLayout, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import {
  generateDecksFromRunSheet,
  OUTLINE_STAGE,
  RUN_SHEET_COLUMNS,
  readRunSheet,
  writeCsvAtomic,
} from '@xsb/decks';
import { DEMO_RUN, demoSheetRows } from '@xsb/eval';
import {
  createLlmClient,
  type Judge,
  judgeFromClient,
  type LlmClient,
  offlineJudge,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { discoverSourceCases, type SourceCase } from '@xsb/sources';
import { BUILT_IN_AUDIENCES } from '@xsb/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { demoDeckWorkList, planOutlines } from './plan-demo';
import { reconcileUsage } from './reconcile-usage';
import { stageAnswerHandler } from './stage-answer-handler';

const MODEL = 'anthropic:claude-sonnet-4-5';
const FIXTURE_SOURCES = resolve(import.meta.dirname, '..', '..', '..', 'fixtures', 'sources');

let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: stageAnswerHandler() });
});
afterAll(async () => {
  await server?.close();
  for (const cleanup of cleanups) await cleanup();
});

async function demoData(): Promise<RunLayout> {
  const { dir, cleanup } = await makeTempDir('xsb-plan-run-outline-');
  cleanups.push(cleanup);
  for (const caseId of await readdir(FIXTURE_SOURCES))
    await cp(join(FIXTURE_SOURCES, caseId), join(dir, 'sources', caseId), { recursive: true });
  return new RunLayout(dir);
}

const ledgerOf = (layout: RunLayout) => join(layout.dataDir, 'ledger.jsonl');

/** A model judge through the real SDK client and the fake server, counting the calls it receives per stage. */
function scriptedJudge(layout: RunLayout, readsImages: boolean) {
  const calls: Record<string, number> = {};
  const inner = createLlmClient(MODEL, { env: fakeProviderEnv(server), ledgerFile: ledgerOf(layout) });
  const client: LlmClient = {
    judgeId: inner.judgeId,
    complete: (request, options) => {
      const stage = request.stage ?? 'unstaged';
      calls[stage] = (calls[stage] ?? 0) + 1;
      return inner.complete(request, options);
    },
  };
  return { judge: judgeFromClient(MODEL, client, { readsImages }), calls };
}

async function planOf(layout: RunLayout, cases: SourceCase[], judge: Judge) {
  const builder = new CostPlanBuilder({ judge: judge.kind === 'offline' ? 'lexical' : MODEL });
  await planOutlines(builder, await demoDeckWorkList(layout, cases, judge), judge);
  return builder.finish({ command: 'test', run: null, ledgerLinesBefore: 0 });
}

/** runDemo's deck stage: the demo sheet written beside the run, then generated. */
async function runDecks(layout: RunLayout, cases: SourceCase[], judge: Judge) {
  const sheetFile = join(layout.runDir(DEMO_RUN), 'run_sheet.csv');
  await mkdir(dirname(sheetFile), { recursive: true });
  await writeCsvAtomic(sheetFile, RUN_SHEET_COLUMNS, demoSheetRows(cases, sheetFile));
  const sheet = await readRunSheet(sheetFile);
  return generateDecksFromRunSheet({
    sheet,
    layout,
    run: DEMO_RUN,
    judge,
    audienceProfiles: BUILT_IN_AUDIENCES,
  });
}

const callsOf = (plan: Awaited<ReturnType<typeof planOf>>) =>
  Object.fromEntries(plan.rows.filter((row) => row.calls > 0).map((row) => [row.stage, row.calls]));

describe('plan = run for the deck outline', () => {
  it.each([
    ['a model judge that reads images', true],
    ['a model judge that reads no images', false],
  ])(
    '%s: calls per stage equal, input tokens within a tenth',
    async (_name, readsImages) => {
      const layout = await demoData();
      const { judge, calls } = scriptedJudge(layout, readsImages);
      const { cases } = await discoverSourceCases(layout.dataDir);
      const plan = await planOf(layout, cases, judge);
      const batch = await runDecks(layout, cases, judge);
      expect(batch.failed).toBe(0);
      expect(calls[OUTLINE_STAGE]).toBe(batch.rows.length);
      expect(callsOf(plan)).toEqual(calls);

      const ledger = await readJsonlAll(ledgerOf(layout), usageLedgerEntrySchema);
      const [row] = reconcileUsage(plan, ledger).rows;
      expect(row!.actual.calls).toBe(row!.planned.calls);
      expect(Math.abs(row!.input_error ?? 1)).toBeLessThanOrEqual(0.1);

      // Planned again: every deck the run made is reused, and the plan says so.
      const again = await planOf(layout, cases, judge);
      expect(again.totals.calls).toBe(0);
      expect(again.totals.reused_calls).toBe(calls[OUTLINE_STAGE]);
    },
    180_000,
  );

  it('the offline judge: no call planned and none made, every deck written', async () => {
    const layout = await demoData();
    const { cases } = await discoverSourceCases(layout.dataDir);
    const requestsBefore = server.requests.length;
    const plan = await planOf(layout, cases, offlineJudge);
    const batch = await runDecks(layout, cases, offlineJudge);
    expect(batch.done).toBe(batch.rows.length);
    expect(batch.rows.length).toBeGreaterThan(0);
    expect(plan.totals.calls).toBe(0);
    expect(plan.rows).toEqual([]);
    expect(server.requests.length).toBe(requestsBefore);
  }, 180_000);
});
