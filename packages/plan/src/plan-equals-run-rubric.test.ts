import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { callsPerStage, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import {
  createLlmClient,
  type Judge,
  judgeFromClient,
  offlineJudge,
  type UsageLedgerEntry,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { holisticWorkList, runHolistic, runRubric } from '@xsb/rubric';
import { writeLayoutFixtureDecks } from '@xsb/rubric/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { planRubric, RUBRIC_ITEM_STAGE } from './plan-rubric';
import { reconcileUsage } from './reconcile-usage';
import { stageAnswerHandler } from './stage-answer-handler';

const DATA = join(import.meta.dirname, '../../../fixtures/rubric/presentbench-layout/data');
const MODEL = 'openai:gpt-4.1';
const HOLISTIC = 'rubric.holistic';
const isHolistic = (system: string) =>
  system.startsWith('You are an expert evaluator of presentation slide decks');

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let server: Awaited<ReturnType<typeof startFakeLlmServer>>;

/** The stage simulator, plus a readable holistic answer (the simulator answers checklist items only). */
const answers = stageAnswerHandler();

beforeAll(async () => {
  temp = await makeTempDir('xsb-plan-run-rubric-');
  server = await startFakeLlmServer({
    handler: (request) =>
      isHolistic(request.system)
        ? { text: '{"content": {"score": 4, "reason": "r"}, "design": 3, "coherence": {"score": 5}}' }
        : answers(request),
  });
});
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
});

/** The small PresentBench tree (ch1_bits with a clean deck; ch2_bad_callable fails to load: no call). */
async function writeTree(root: string): Promise<string> {
  await mkdir(root, { recursive: true });
  const decks = await writeLayoutFixtureDecks(root);
  const resultsDir = join(root, 'results');
  const deckDir = join(resultsDir, 'education/Computer_science_lectures/ch1_bits/generation_task/results');
  await mkdir(deckDir, { recursive: true });
  await copyFile(decks.clean, join(deckDir, 'slides.pptx'));
  return resultsDir;
}

/** Calls the fake server received per stage since `from` (the scripted client's own count). */
function callsReceived(from: number): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const request of server.requests.slice(from)) {
    const stage = isHolistic(request.system) ? HOLISTIC : RUBRIC_ITEM_STAGE;
    calls[stage] = (calls[stage] ?? 0) + 1;
  }
  return calls;
}

const judges: Array<[string, (ledgerFile: string) => Judge]> = [
  [
    'a model judge that reads images',
    (ledgerFile) =>
      judgeFromClient(
        MODEL,
        createLlmClient(MODEL, { env: fakeProviderEnv(server), noCache: true, ledgerFile }),
      ),
  ],
  [
    'a model judge that reads no images',
    (ledgerFile) =>
      judgeFromClient(
        MODEL,
        createLlmClient(MODEL, { env: fakeProviderEnv(server), noCache: true, ledgerFile }),
        {
          readsImages: false,
        },
      ),
  ],
  ['the offline judge', () => offlineJudge],
];

describe('plan = run for the rubric items and the holistic baseline', () => {
  it.each(judges)(
    '%s: calls per stage equal, tokens within the estimator error',
    async (name, makeJudge) => {
      const root = join(temp.dir, name.replace(/\W+/g, '-'));
      const resultsDir = await writeTree(root);
      const ledgerFile = join(root, 'usage_ledger.jsonl');
      const judge = makeJudge(ledgerFile);
      const description = { id: judge.id, kind: judge.kind, capabilities: judge.capabilities };
      const options = { instancesDir: DATA, resultsDir };

      // Plan: the rubric list priced by planRubric, the holistic list (no `xsb plan` row) priced alike.
      const builder = new CostPlanBuilder({ judge: MODEL, env: fakeProviderEnv(server) });
      await planRubric(builder, { ...options, judge: description });
      const holistic = judge.kind === 'offline' ? [] : await holisticWorkList(options, judge);
      for (const unit of holistic)
        if (unit.decision.kind === 'call')
          for (const request of unit.decision.requests)
            await builder.add({ stage: HOLISTIC, request, outputTokens: unit.decision.outputTokens });
      const plan = await builder.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
      const planned = Object.fromEntries(
        plan.rows.filter((row) => row.calls > 0).map((row) => [row.stage, row.calls]),
      );
      expect(callsPerStage(holistic)).toEqual(holistic.length > 0 ? { [HOLISTIC]: 1 } : {});

      // Run: the same lists through the scripted client.
      const before = server.requests.length;
      const { summary } = await runRubric({ ...options, judge });
      if (judge.kind === 'offline')
        await expect(runHolistic({ ...options, judge })).rejects.toThrow(/no offline judge/);
      else
        expect((await runHolistic({ ...options, judge })).map((row) => row.error)).toEqual([
          null,
          'no slides.pdf or slides.pptx',
        ]);
      expect(summary.rows.map((row) => row.status)).toEqual(['evaluated', 'failed']);

      const received = callsReceived(before);
      expect(planned).toEqual(received);
      if (judge.kind === 'offline') {
        expect(received).toEqual({});
        return;
      }
      expect(received[RUBRIC_ITEM_STAGE]).toBeGreaterThan(0);
      const ledger: UsageLedgerEntry[] = await readJsonlAll(ledgerFile, usageLedgerEntrySchema);
      const reconciliation = reconcileUsage(plan, ledger);
      for (const row of reconciliation.rows) {
        expect(row.actual.calls).toBe(planned[row.stage]);
        expect(Math.abs(row.input_error ?? 1)).toBeLessThan(0.05);
      }
    },
    120_000,
  );
});
