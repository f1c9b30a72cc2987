/**
 * Plan = run for stages 2 (probes) and 3 (weights): the plan prices the work lists the stages run,
 * so on the demo sources the calls per stage are equal, for a model judge that reads images, one that
 * does not, and the offline judge; input tokens agree within the estimator's error.
 */
import { readJsonlAll } from '@xsb/core';
import { offlineJudge, usageLedgerEntrySchema } from '@xsb/llm';
import { createProbeGenerator, generateRunProbes } from '@xsb/probes';
import { discoverSourceCases } from '@xsb/sources';
import { createUtilityJudge, weighRun } from '@xsb/weights';
import { describe, expect, it } from 'vitest';
import { planProbes } from './plan-probes';
import { planWeights } from './plan-weights';
import { reconcileUsage } from './reconcile-usage';
import { callsOf, ledgerOf, plannedCalls, usePlanRunFixture } from './testing-plan-equals-run';

const { demoData, scriptedJudge } = usePlanRunFixture('xsb-plan-run-');

describe('plan = run for probes and weights', () => {
  it.each([
    ['a model judge that reads images', true],
    ['a model judge that reads no images', false],
  ])(
    '%s: calls per stage equal, input tokens within a tenth',
    async (_name, readsImages) => {
      const layout = await demoData();
      const { judge, calls } = scriptedJudge(layout, readsImages);
      const discovered = await discoverSourceCases(layout.dataDir);
      expect(discovered.cases).toHaveLength(3);

      const probesPlan = await plannedCalls(
        (builder) => planProbes(builder, { layout, cases: discovered.cases, judge }),
        judge,
      );
      const probes = await generateRunProbes(layout, discovered, { generator: createProbeGenerator(judge) });
      expect(probes.map((row) => row.status)).toEqual(['complete', 'complete', 'complete']);
      expect(calls.probes).toBeGreaterThan(0);
      expect(callsOf(probesPlan)).toEqual({ probes: calls.probes });

      const pairs = discovered.cases.flatMap((c) =>
        c.metadata.valid_audiences.map((audience) => ({ caseLabel: c.caseId, audience })),
      );
      const weightsPlan = await plannedCalls(
        (builder) => planWeights(builder, { layout, pairs, judge }),
        judge,
      );
      const weights = await weighRun(layout, discovered, { judge: createUtilityJudge(judge) });
      expect(weights.every((row) => row.status === 'complete')).toBe(true);
      expect(callsOf(weightsPlan)).toEqual({ weights: calls.weights });

      const ledger = await readJsonlAll(ledgerOf(layout), usageLedgerEntrySchema);
      for (const plan of [probesPlan, weightsPlan]) {
        const stage = plan.rows[0]!.stage;
        const reconciliation = reconcileUsage(
          plan,
          ledger.filter((entry) => entry.stage === stage),
        );
        const [row] = reconciliation.rows;
        expect(row!.actual.calls, stage).toBe(row!.planned.calls);
        expect(Math.abs(row!.input_error ?? 1), stage).toBeLessThanOrEqual(0.1);
      }

      // Run again: every unit is reused, and the plan says so.
      const again = await plannedCalls(async (builder) => {
        await planProbes(builder, { layout, cases: discovered.cases, judge });
        await planWeights(builder, { layout, pairs, judge });
      }, judge);
      expect(again.totals.calls).toBe(0);
      expect(again.totals.reused_calls).toBe(calls.probes! + calls.weights!);
    },
    180_000,
  );

  it('the offline judge: no call planned and none made, the same artifacts written', async () => {
    const layout = await demoData();
    const discovered = await discoverSourceCases(layout.dataDir);
    const plan = await plannedCalls(async (builder) => {
      await planProbes(builder, { layout, cases: discovered.cases, judge: offlineJudge });
    }, offlineJudge);
    const probes = await generateRunProbes(layout, discovered, {
      generator: createProbeGenerator(offlineJudge),
    });
    expect(probes.map((row) => row.status)).toEqual(['complete', 'complete', 'complete']);
    const pairs = discovered.cases.flatMap((c) =>
      c.metadata.valid_audiences.map((audience) => ({ caseLabel: c.caseId, audience })),
    );
    const weightsPlan = await plannedCalls(
      (builder) => planWeights(builder, { layout, pairs, judge: offlineJudge }),
      offlineJudge,
    );
    const weights = await weighRun(layout, discovered, { judge: createUtilityJudge(offlineJudge) });
    expect(weights.map((row) => row.status)).toEqual(pairs.map(() => 'complete'));
    expect(plan.totals.calls + weightsPlan.totals.calls).toBe(0);
    expect(plan.rows.map((row) => row.stage)).toEqual([]);
  }, 180_000);
});
