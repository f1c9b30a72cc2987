import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import type { UsageLedgerEntry } from '@xsb/llm';
import { type CompletionRequest, createLlmClient } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CostPlanBuilder } from './cost-plan-builder';
import { reconcileUsage } from './reconcile-usage';

let server: Awaited<ReturnType<typeof startFakeLlmServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: () => ({ text: 'ok' }) });
  temp = await makeTempDir('xsb-plan-builder-');
});
afterAll(async () => {
  await server.close();
  await temp.cleanup();
});

const ask = (text: string): CompletionRequest => ({
  system: 'Answer.',
  messages: [{ role: 'user', content: text }],
  maxTokens: 100,
});
const meta = { command: 'test', run: null, ledgerLinesBefore: 0 };

describe('CostPlanBuilder', () => {
  it('counts a request the disk cache holds, or one asked before in the plan, as a free cached call', async () => {
    const env = fakeProviderEnv(server);
    const cacheDir = join(temp.dir, 'cache');
    await createLlmClient('anthropic:claude-sonnet-4-5', { env, cacheDir }).complete(ask('answered before'));
    const builder = new CostPlanBuilder({ judge: 'anthropic:claude-sonnet-4-5', env, cacheDir });
    for (const text of ['answered before', 'new', 'new'])
      await builder.add({ stage: 's', request: ask(text), outputTokens: 10 });
    const plan = await builder.finish(meta);
    expect(plan.rows[0]).toMatchObject({ calls: 1, cached_calls: 2, output_tokens: 10 });
    // Another base URL is another cache key: nothing is answered from the entry above.
    const other = new CostPlanBuilder({
      judge: 'anthropic:claude-sonnet-4-5',
      env: { ...env, ANTHROPIC_BASE_URL: 'https://elsewhere.example' },
      cacheDir,
    });
    await other.add({ stage: 's', request: ask('answered before'), outputTokens: 10 });
    expect((await other.finish(meta)).rows[0]!.cached_calls).toBe(0);
  });

  it('prices from the default table, config prices over it, and no guessed price', async () => {
    const run = async (judge: string, prices = {}) => {
      const builder = new CostPlanBuilder({ judge, prices });
      await builder.add({ stage: 's', request: ask('x'.repeat(4000)), outputTokens: 1000 });
      return builder.finish(meta);
    };
    const table = await run('anthropic:claude-sonnet-4-5');
    // 1,002 input tokens at $3/M and 1,000 output at $15/M.
    expect(table.rows[0]!.cost_usd.online).toBeCloseTo((1002 * 3 + 1000 * 15) / 1e6, 9);
    expect(table.rows[0]!.cost_usd.batch).toBeCloseTo(table.rows[0]!.cost_usd.online! / 2, 9);
    expect(table.prices.source).toBe('default');
    const configured = await run('anthropic:claude-sonnet-4-5', {
      'claude-sonnet-4-5': { input: 1, output: 1 },
    });
    expect(configured.prices.source).toBe('config');
    expect(configured.rows[0]!.cost_usd.online).toBeCloseTo(2002 / 1e6, 9);
    const unpriced = await run('openai:my-local-model');
    expect(unpriced.rows[0]!.cost_usd).toEqual({ online: null, online_cached: null, batch: null });
    expect(unpriced.totals.cost_usd.online).toBeNull();
    expect(unpriced.notes.join(' ')).toMatch(/no price for model my-local-model/);
  });

  it('--exact falls back to the estimator, with a note, when the count endpoint is missing', async () => {
    const env = { ...fakeProviderEnv(server), OPENAI_BASE_URL: `${server.url}/no-such-api` };
    const builder = new CostPlanBuilder({ judge: 'openai:gpt-4.1', env, exact: true });
    await builder.add({ stage: 's', request: ask('hello there'), outputTokens: 5 });
    await builder.add({ stage: 's', request: ask('and again'), outputTokens: 5 });
    const plan = await builder.finish(meta);
    expect(plan.rows[0]).toMatchObject({ calls: 2, token_source: 'estimator' });
    expect(plan.estimator.name).toBe('bytes/4');
    expect(plan.notes.join(' ')).toMatch(/token count failed .*HTTP 404.*use the bytes\/4 estimator/);
  });
});

const line = (stage: string, extra: Partial<UsageLedgerEntry> = {}): UsageLedgerEntry => ({
  time: '2026-12-01T00:00:00.000Z',
  stage,
  judge: 'anthropic:claude-sonnet-4-5',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5-20250929',
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  latencyMs: 1,
  retries: 0,
  cacheHit: false,
  ok: true,
  ...extra,
});

describe('reconcileUsage', () => {
  it('fails an exact row whose calls or input tokens are off, shows an estimated one, flags unplanned stages', async () => {
    const builder = new CostPlanBuilder({ judge: 'anthropic:claude-sonnet-4-5' });
    for (let i = 0; i < 2; i += 1)
      await builder.add({ stage: 'exact', request: ask('y'.repeat(396)), outputTokens: 10 });
    await builder.add({
      stage: 'guess',
      request: ask('z'.repeat(396)),
      outputTokens: 10,
      assumption: 'a guess',
    });
    const plan = await builder.finish(meta);
    const good = reconcileUsage(plan, [line('exact'), line('exact'), line('guess', { inputTokens: 300 })]);
    expect(good.ok).toBe(true);
    const guess = good.rows.find((row) => row.stage === 'guess')!;
    // (planned − billed) / billed: shown, however far off, since the row is estimated.
    expect(guess.input_error).toBeCloseTo((guess.planned.input_tokens - 300) / 300, 9);
    expect(guess.input_error!).toBeLessThan(-0.5);
    const bad = reconcileUsage(plan, [
      line('exact', { inputTokens: 150 }),
      line('exact', { cacheHit: true }),
      line('other'),
    ]);
    expect(bad.ok).toBe(false);
    const exact = bad.rows.find((row) => row.stage === 'exact')!;
    expect(exact.problems).toEqual([
      '1 provider calls where the plan has 2',
      '1 disk-cache answers where the plan has 0',
      'input tokens off by 34.7 % (more than 10 %)', // 202 planned, 150 billed
    ]);
    expect(bad.rows.find((row) => row.stage === 'other')!.problems).toEqual([
      '1 ledger line of a stage the plan does not list',
    ]);
  });

  it('compares a batch run with the plan’s batch cost', async () => {
    const builder = new CostPlanBuilder({ judge: 'anthropic:claude-sonnet-4-5' });
    await builder.add({ stage: 'exact', request: ask('y'.repeat(396)), outputTokens: 10 });
    const plan = await builder.finish(meta);
    const online = reconcileUsage(plan, [line('exact')]).rows[0]!;
    const batch = reconcileUsage(plan, [line('exact', { batch: true, batchId: 'msgbatch_1' })]).rows[0]!;
    // Plan costs are rounded to a millionth of a dollar.
    expect(batch.planned.cost_usd).toBeCloseTo(online.planned.cost_usd! / 2, 5);
    expect(batch.actual.cost_usd).toBeCloseTo(online.actual.cost_usd! / 2, 9);
  });
});
