import { join } from 'node:path';
import { RunLayout, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { DEMO_RUN, runDemo, runEvaluation } from '@xsb/eval';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEXICAL_BANK_ASSUMPTION } from './bank-judge';
import { CostPlanBuilder } from './cost-plan-builder';
import { planEval } from './plan-eval';
import { planRowBasis } from './plan-tables';
import { reconcileUsage } from './reconcile-usage';
import { stageAnswerHandler } from './stage-answer-handler';

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
let dataDir: string;

beforeAll(async () => {
  temp = await makeTempDir('xsb-plan-eval-');
  // Sources, probes, weights and decks of the shipped demo, made offline; the model judge below
  // then evaluates the same decks anew (another judge: no job is current for it).
  await runDemo({ outDir: temp.dir });
  dataDir = join(temp.dir, 'data');
  server = await startFakeLlmServer({ handler: stageAnswerHandler() });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
});

async function ledgerAfter(lines: number) {
  const all = await readJsonlAll(new RunLayout(dataDir).usageLedgerFile(DEMO_RUN), usageLedgerEntrySchema);
  return all.slice(lines);
}

describe('planEval', () => {
  it.each(['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1'])(
    '%s: the plan of `xsb eval` matches what the run then calls, to the call, and its input tokens within a tenth',
    async (judge) => {
      const env = fakeProviderEnv(server);
      const cacheDir = join(temp.dir, `cache-${judge.split(':')[0]}`);
      const context = { judge, env, cacheDir };
      const before = (await ledgerAfter(0)).length;
      const builder = new CostPlanBuilder(context);
      const planned = await planEval(builder, { dataDir, run: DEMO_RUN });
      const plan = await builder.finish({ command: 'eval', run: DEMO_RUN, ledgerLinesBefore: before });
      expect(planned.jobs).toBe(21);
      const rows = new Map(plan.rows.map((row) => [row.stage, row]));
      // Answerability and claim extraction follow from the files on disk; verification rests on how
      // many claims the model extracts.
      expect(rows.get('eval.answerability')?.exact).toBe(true);
      expect(rows.get('eval.claims')?.exact).toBe(true);
      expect(rows.get('eval.verification')?.exact).toBe(false);
      // The demo's banks are the lexical judge's: exact for this command, an estimate for a model run.
      expect(rows.get('eval.answerability')?.input_assumptions).toEqual([LEXICAL_BANK_ASSUMPTION]);
      expect(rows.get('eval.claims')?.input_assumptions).toEqual([]);
      expect(planRowBasis(rows.get('eval.answerability')!)).toBe('estimated');
      expect(
        plan.notes.some((note) => note.startsWith('probe banks on disk made by the lexical judge')),
      ).toBe(true);
      // An agnostic deck is judged once and asked again for its other audiences: the disk cache answers.
      expect(rows.get('eval.answerability')!.cached_calls).toBeGreaterThan(0);
      // One claim extraction per deck (the correctness cache is keyed by deck, not audience).
      expect(rows.get('eval.claims')!.calls).toBe(13);
      expect(rows.get('eval.claims')!.reused_calls).toBe(8);
      expect(plan.totals.cost_usd.online).toBeGreaterThan(plan.totals.cost_usd.online_cached!);
      expect(plan.totals.cost_usd.batch).toBeLessThan(plan.totals.cost_usd.online_cached!);

      await runEvaluation({ dataDir, run: DEMO_RUN, judge, env, cacheDir });
      const reconciliation = reconcileUsage(plan, await ledgerAfter(before));
      for (const row of reconciliation.rows.filter((r) => r.exact)) {
        expect(row.problems, row.stage).toEqual([]);
        expect(row.actual.calls, row.stage).toBe(row.planned.calls);
        expect(Math.abs(row.input_error ?? 0), row.stage).toBeLessThanOrEqual(0.1);
      }
      expect(reconciliation.ok).toBe(true);

      // Planned again after the run: every job is current, nothing is called.
      const again = new CostPlanBuilder(context);
      await planEval(again, { dataDir, run: DEMO_RUN });
      const second = await again.finish({ command: 'eval', run: DEMO_RUN, ledgerLinesBefore: 0 });
      expect(second.totals.calls).toBe(0);
      expect(second.totals.reused_calls).toBeGreaterThan(0);
    },
    180_000,
  );

  it('the offline judge plans its zero-token ledger lines and no cost', async () => {
    const builder = new CostPlanBuilder({ judge: 'lexical' });
    await planEval(builder, { dataDir, run: DEMO_RUN, force: true });
    const plan = await builder.finish({ command: 'eval --force', run: DEMO_RUN, ledgerLinesBefore: 0 });
    expect(plan.totals.input_tokens).toBe(0);
    expect(plan.totals.cost_usd).toEqual({ online: 0, online_cached: 0, batch: 0 });
    expect(plan.rows.every((row) => row.exact)).toBe(true);
    // The offline judge runs on the offline bank: nothing to assume.
    expect(plan.rows.every((row) => planRowBasis(row) === 'exact')).toBe(true);
    const before = (await ledgerAfter(0)).length;
    await runEvaluation({ dataDir, run: DEMO_RUN, judge: 'lexical', force: true });
    const reconciliation = reconcileUsage(plan, await ledgerAfter(before));
    expect(reconciliation.rows.map((row) => [row.stage, row.actual.calls])).toEqual(
      plan.rows.map((row) => [row.stage, row.calls]),
    );
    expect(reconciliation.ok).toBe(true);
  }, 120_000);
});
