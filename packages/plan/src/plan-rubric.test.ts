import { copyFile, cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import {
  createLlmClient,
  judgeFromClient,
  preferredConcurrencyFor,
  type UsageLedgerEntry,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { runRubric } from '@xsb/rubric';
import { writeLectureDeck } from '@xsb/rubric/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { planRubric } from './plan-rubric';
import { reconcileUsage } from './reconcile-usage';
import { stageAnswerHandler } from './stage-answer-handler';

const APPENDIX = join(import.meta.dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1');

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let server: Awaited<ReturnType<typeof startFakeLlmServer>>;

/** Two instances (the appendix instance twice) and a results tree with a deck of 25 and one of 40 slides. */
async function writeRubricTree(root: string): Promise<{ instancesDir: string; resultsDir: string }> {
  const instancesDir = join(root, 'instances');
  const resultsDir = join(root, 'results');
  for (const [name, slides] of [
    ['lecture-a', 25],
    ['lecture-b', 40],
  ] as const) {
    await cp(APPENDIX, join(instancesDir, name), { recursive: true });
    const target = join(resultsDir, name, 'generation_task', 'results');
    await mkdir(target, { recursive: true });
    await copyFile(await writeLectureDeck(root, slides), join(target, 'slides.pptx'));
  }
  return { instancesDir, resultsDir };
}

beforeAll(async () => {
  temp = await makeTempDir('xsb-plan-rubric-');
  server = await startFakeLlmServer({ handler: stageAnswerHandler() });
});
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
});

describe('planRubric', () => {
  it.each([
    ['anthropic:claude-sonnet-4-5', false, 1],
    ['openai:gpt-4.1', false, 2],
    ['anthropic:claude-sonnet-4-5', true, 1],
    ['openai:gpt-4.1', true, 2],
  ] as const)(
    '%s (batch %s, %i deck(s) at once): every checklist call is planned, input tokens and cache reads close to the billed ones',
    async (judge, batch, deckConcurrency) => {
      const root = join(temp.dir, `${judge.replace(/\W+/g, '-')}-${batch}-${deckConcurrency}`);
      const { instancesDir, resultsDir } = await writeRubricTree(root);
      const env = fakeProviderEnv(server);
      const cacheDir = join(root, 'cache');
      const ledgerFile = join(root, 'usage_ledger.jsonl');
      const builder = new CostPlanBuilder({ judge, env, cacheDir });
      const planned = await planRubric(builder, { instancesDir, resultsDir });
      const plan = await builder.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
      expect(planned).toEqual({ instances: 2, failures: [] });
      const [row] = plan.rows;
      expect(row).toMatchObject({ stage: 'rubric.item', exact: true, cached_calls: 0, reused_calls: 0 });
      // One call per LLM item: fundamentals 13 (one is the slide-count check, decided by code), design
      // 17, completeness 13, correctness 7, fidelity one per slide up to 35: 74 + 84.
      expect(row!.calls).toBe(158);
      // The deck (+ materials) prefix is written once per tier and deck and read by every other item.
      expect(row!.cache_read_tokens / row!.input_tokens).toBeGreaterThan(0.8);

      const clientOptions = {
        env,
        cacheDir,
        ledgerFile,
        ...(batch ? { batch: { stateDir: root, idleMs: 50, pollIntervalMs: 20 } } : {}),
      };
      const batchesBefore = server.batches.length;
      const { summary } = await runRubric({
        instancesDir,
        resultsDir,
        judge: judgeFromClient(judge, createLlmClient(judge, clientOptions)),
        concurrency: preferredConcurrencyFor(judge, clientOptions),
        instanceConcurrency: deckConcurrency,
      });
      expect(summary.rows.map((r) => [r.instance_id, r.status])).toEqual([
        ['appendix-a2-computer-science-overview-ch1', 'evaluated'],
        ['appendix-a2-computer-science-overview-ch1', 'evaluated'],
      ]);
      // Each deck sends the first item of each tier alone, then the rest: three rounds. One deck at a
      // time makes three batches per deck; two decks at once share each round's batch.
      if (batch) expect(server.batches.length - batchesBefore).toBe(6 / deckConcurrency);
      const ledger: UsageLedgerEntry[] = await readJsonlAll(ledgerFile, usageLedgerEntrySchema);
      if (batch) expect(ledger.every((line) => line.batch === true)).toBe(true);
      const reconciliation = reconcileUsage(plan, ledger);
      expect(reconciliation.rows[0]!.problems).toEqual([]);
      expect(reconciliation.rows[0]!.actual.calls).toBe(158);
      expect(Math.abs(reconciliation.rows[0]!.input_error!)).toBeLessThan(0.02);
      const actualShare =
        reconciliation.rows[0]!.actual.cache_read_tokens / reconciliation.rows[0]!.actual.input_tokens;
      const plannedShare = row!.cache_read_tokens / row!.input_tokens;
      // Never promises more prompt caching than the provider gives. It may give more: the fake's OpenAI
      // cache (as OpenAI's) matches prompts character by character, also reading the item text two
      // items share after their last common part; a batch answers its entries one after another, so
      // every entry sees all the earlier ones (measured: 0.925 planned, 0.944 online, 0.983 batch).
      expect(plannedShare).toBeLessThanOrEqual(actualShare + 0.01);
      expect(actualShare - plannedShare).toBeLessThan(0.07);
      expect(reconciliation.ok).toBe(true);

      // After the run every evaluation is current: a new plan reuses all of it.
      const again = new CostPlanBuilder({ judge, env, cacheDir });
      await planRubric(again, { instancesDir, resultsDir });
      const second = await again.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
      expect(second.rows[0]).toMatchObject({ calls: 0, reused_calls: 158 });
    },
    180_000,
  );

  it.each(['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1'])(
    '%s --exact: the provider count endpoint counts every planned request, no message is sent, bytes/4 within a hundredth',
    async (judge) => {
      const { instancesDir, resultsDir } = await writeRubricTree(
        join(temp.dir, `exact-${judge.split(':')[0]}`),
      );
      const env = fakeProviderEnv(server);
      const estimated = new CostPlanBuilder({ judge, env });
      await planRubric(estimated, { instancesDir, resultsDir });
      const byEstimator = await estimated.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
      const messages = server.requests.length;
      const counts = server.tokenCountRequests;
      const counted = new CostPlanBuilder({ judge, env, exact: true });
      await planRubric(counted, { instancesDir, resultsDir });
      const byEndpoint = await counted.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
      expect(server.requests.length).toBe(messages);
      expect(server.tokenCountRequests - counts).toBe(158);
      expect(byEndpoint.rows[0]).toMatchObject({ calls: 158, token_source: 'count_endpoint' });
      expect(byEstimator.rows[0]).toMatchObject({ calls: 158, token_source: 'estimator' });
      // The fake counts bytes / 4 of the wire body: what is left is the framing the estimator omits.
      const error = byEstimator.rows[0]!.input_tokens / byEndpoint.rows[0]!.input_tokens - 1;
      expect(Math.abs(error)).toBeLessThan(0.01);
    },
    120_000,
  );

  it('the offline judge judges no item: nothing is planned', async () => {
    const { instancesDir, resultsDir } = await writeRubricTree(join(temp.dir, 'offline'));
    const builder = new CostPlanBuilder({ judge: 'lexical' });
    await planRubric(builder, { instancesDir, resultsDir });
    const plan = await builder.finish({ command: 'rubric run', run: null, ledgerLinesBefore: 0 });
    expect(plan.totals.calls).toBe(0);
    expect(plan.notes.join('\n')).toMatch(/not judged/);
  });
});
