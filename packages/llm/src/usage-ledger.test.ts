import { join } from 'node:path';
import { ConfigError, exitCodeFor, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from './create-llm-client';
import { parseJudgeSpec } from './parse-judge-spec';
import { costOfUsage, DEFAULT_PRICES, DEFAULT_PRICES_AS_OF, priceFor } from './price-table';
import { usageLedgerEntrySchema } from './schemas/usage-ledger-entry';
import { summarizeUsage, summarizeUsageLedger } from './usage-summary';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({
    handler: () => ({ text: 'four words of answer', model: 'claude-sonnet-4-5-20250929' }),
  });
});
afterAll(async () => {
  await server.close();
});

describe('usage ledger', () => {
  it('appends one validated line per call with tokens, retries and cache hits, and sums them with costs', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-llm-ledger-');
    try {
      const ledgerFile = join(dir, 'run', 'usage_ledger.jsonl');
      const options = {
        env: fakeProviderEnv(server),
        cacheDir: join(dir, 'cache'),
        ledgerFile,
        stage: 'probes',
        baseBackoffMs: 1,
      };
      let calls = 0;
      server.setHandler(() => {
        calls += 1;
        return calls === 1
          ? { fault: { kind: 'status', status: 529 } }
          : { text: 'four words of answer', model: 'claude-sonnet-4-5-20250929' };
      });
      const llm = createLlmClient('anthropic:claude-sonnet-4-5', options);
      const question = { messages: [{ role: 'user' as const, content: 'x'.repeat(4000) }] };
      await llm.complete(question);
      await llm.complete({ ...question, stage: 'weights' });
      server.setHandler(() => ({ fault: { kind: 'status', status: 400 } }));
      await llm.complete({ messages: [{ role: 'user', content: 'bad' }] }).catch(() => undefined);

      const entries = await readJsonlAll(ledgerFile, usageLedgerEntrySchema);
      expect(entries.map((e) => [e.stage, e.ok, e.cacheHit, e.retries, e.error])).toEqual([
        ['probes', true, false, 1, undefined],
        ['weights', true, true, 0, undefined],
        ['probes', false, false, 0, 'bad_request'],
      ]);
      expect(entries[0]).toMatchObject({
        judge: 'anthropic:claude-sonnet-4-5',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5-20250929',
        inputTokens: 1000,
        outputTokens: 5,
        // Priced when written (online $3 / $15), estimated before the call.
        costUsd: (1000 * 3 + 5 * 15) / 1e6,
        estimatedInputTokens: 1000,
      });
      expect(entries[0]?.batch).toBeUndefined();
      expect(entries[1]?.costUsd).toBe(0);

      const summary = await summarizeUsageLedger(ledgerFile);
      expect(summary.totals).toMatchObject({
        calls: 3,
        cacheHits: 1,
        failures: 1,
        retries: 1,
        inputTokens: 1000,
        outputTokens: 5,
      });
      // claude-sonnet-4-5: $3 / MTok in, $15 / MTok out.
      expect(summary.totals.costUsd).toBeCloseTo((1000 * 3 + 5 * 15) / 1e6, 12);
      const custom = await summarizeUsageLedger(ledgerFile, {
        'anthropic:claude-sonnet-4-5': { input: 1, output: 1 },
      });
      expect(custom.totals.costUsd).toBeCloseTo(1005 / 1e6, 12);
    } finally {
      await cleanup();
    }
  });

  it('leaves unknown models unpriced instead of guessing', () => {
    const summary = summarizeUsage([
      {
        time: 't',
        stage: 's',
        judge: 'openai:local-llama',
        provider: 'openai',
        model: 'llama3',
        inputTokens: 10,
        outputTokens: 10,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        latencyMs: 1,
        retries: 0,
        cacheHit: false,
        ok: true,
      },
    ]);
    expect(summary.rows[0]?.costUsd).toBeNull();
    expect(summary.unpricedModels).toEqual(['llama3']);
  });

  it('prices batch lines at the batch price: the table entry, else half the online price', () => {
    const line = (
      batch: boolean,
      judge = 'anthropic:claude-sonnet-4-5',
      model = 'claude-sonnet-4-5-20250929',
    ) => ({
      time: 't',
      stage: 'rubric',
      judge,
      provider: 'anthropic',
      model,
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cacheReadTokens: 1_000_000,
      cacheWriteTokens: 100_000,
      latencyMs: 1,
      retries: 0,
      cacheHit: false,
      ok: true,
      ...(batch ? { batch: true, batchId: 'msgbatch_1' } : {}),
    });
    // Online: 3 + 1.5 + 0.3 + 0.375 = 5.175; batch: half of each.
    const summary = summarizeUsage([line(false), line(true)]);
    expect(summary.totals.batchCalls).toBe(1);
    expect(summary.totals.costUsd).toBeCloseTo(5.175 + 2.5875, 9);
    expect(DEFAULT_PRICES['claude-sonnet-4-5']?.batch).toEqual({
      input: 1.5,
      output: 7.5,
      cacheRead: 0.15,
      cacheWrite: 1.875,
    });
    // A user price without batch prices: half its online price; with them: those.
    const custom = summarizeUsage([line(true, 'openai:mine', 'mine')], { mine: { input: 2, output: 2 } });
    expect(custom.totals.costUsd).toBeCloseTo((2 + 0.2 + 2 + 0.2) / 2, 9);
    const explicit = summarizeUsage([line(true, 'openai:mine', 'mine')], {
      mine: { input: 2, output: 2, batch: { input: 2, output: 2, cacheRead: 2, cacheWrite: 2 } },
    });
    expect(explicit.totals.costUsd).toBeCloseTo(2 + 0.2 + 2 + 0.2, 9);
    expect(costOfUsage(line(true), DEFAULT_PRICES['claude-sonnet-4-5']!, true)).toBeCloseTo(2.5875, 9);
    expect(DEFAULT_PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('matches dated model ids to the longest listed prefix', () => {
    expect(priceFor('openai:gpt-4o-mini-2024-07-18', 'gpt-4o-mini-2024-07-18')?.input).toBe(0.15);
    expect(priceFor('openai:gpt-4o-2024-08-06', 'gpt-4o-2024-08-06')?.input).toBe(2.5);
  });
});

describe('judge specs', () => {
  it('parses every form', () => {
    expect(parseJudgeSpec('anthropic:claude-sonnet-4-5')).toEqual({
      kind: 'anthropic',
      spec: 'anthropic:claude-sonnet-4-5',
      model: 'claude-sonnet-4-5',
    });
    expect(parseJudgeSpec('openai:llama3.1:8b')).toMatchObject({ kind: 'openai', model: 'llama3.1:8b' });
    expect(parseJudgeSpec('replay:eval/llm/m.jsonl')).toMatchObject({
      kind: 'replay',
      store: 'eval/llm/m.jsonl',
    });
    expect(parseJudgeSpec('record:m.jsonl')).toMatchObject({ kind: 'record', store: 'm.jsonl' });
    expect(parseJudgeSpec(' lexical ')).toEqual({ kind: 'lexical', spec: 'lexical' });
  });

  it.each(['gemini:pro', 'anthropic:', 'replay:', 'nonsense'])(
    'refuses %j as a configuration error',
    (spec) => {
      expect(() => parseJudgeSpec(spec)).toThrow(ConfigError);
    },
  );

  it.each([
    ['anthropic:claude-x', 'ANTHROPIC_API_KEY'],
    ['openai:gpt-x', 'OPENAI_API_KEY'],
  ])('%s without a key fails at creation naming %s (exit 2)', (spec, variable) => {
    let error: unknown;
    try {
      createLlmClient(spec, { env: { [variable]: '  ' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(variable);
    expect(exitCodeFor(error)).toBe(2);
  });
});
