/**
 * Plan = run for stage 4, the LLM deck outline: `xsb plan demo` prices decks' deckGenerationWorkList
 * over the demo's run sheet, the list generateDecksFromRunSheet runs, so on the demo sources the calls
 * per stage are equal for a model judge that reads images, one that does not, and the offline judge;
 * input tokens agree within the estimator's error, and a second plan reuses every deck the run made.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type RunLayout, readJsonlAll } from '@xsb/core';
import {
  generateDecksFromRunSheet,
  OUTLINE_STAGE,
  RUN_SHEET_COLUMNS,
  readRunSheet,
  writeCsvAtomic,
} from '@xsb/decks';
import { DEMO_RUN, demoSheetRows } from '@xsb/eval';
import { type Judge, offlineJudge, usageLedgerEntrySchema } from '@xsb/llm';
import { discoverSourceCases, type SourceCase } from '@xsb/sources';
import { BUILT_IN_AUDIENCES } from '@xsb/weights';
import { describe, expect, it } from 'vitest';
import { demoDeckWorkList, planOutlines } from './plan-demo';
import { reconcileUsage } from './reconcile-usage';
import { callsOf, ledgerOf, plannedCalls, usePlanRunFixture } from './testing-plan-equals-run';

const { demoData, scriptedJudge, server } = usePlanRunFixture('xsb-plan-run-outline-');

function planOf(layout: RunLayout, cases: SourceCase[], judge: Judge) {
  return plannedCalls(async (builder) => {
    await planOutlines(builder, await demoDeckWorkList(layout, cases, judge), judge);
  }, judge);
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
    const requestsBefore = server().requests.length;
    const plan = await planOf(layout, cases, offlineJudge);
    const batch = await runDecks(layout, cases, offlineJudge);
    expect(batch.done).toBe(batch.rows.length);
    expect(batch.rows.length).toBeGreaterThan(0);
    expect(plan.totals.calls).toBe(0);
    expect(plan.rows).toEqual([]);
    expect(server().requests.length).toBe(requestsBefore);
  }, 180_000);
});
