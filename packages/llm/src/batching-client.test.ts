import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProviderError, readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BatchEvent,
  BatchingClient,
  type BatchOptions,
  customIdFor,
  DEFAULT_MAX_BATCH_BYTES,
} from './batching-client';
import type { CompletionRequest, LlmClient } from './completion-types';
import { createLlmClient, preferredConcurrencyFor } from './create-llm-client';
import { FakeClock } from './fake-clock';
import { cacheKeyFor } from './request-key';
import { type BatchState, batchStateSchema } from './schemas/batch-state';
import { usageLedgerEntrySchema } from './schemas/usage-ledger-entry';

const SPECS = ['anthropic:claude-sonnet-4-5', 'openai:gpt-4o-mini'] as const;

let server: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  server = await startFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-batch-'));
  server.setHandler((r) => ({ text: `answer to ${r.text}` }));
  server.setBatchPlan(() => ({ pollsBeforeEnd: 1 }));
});
afterEach(async () => {
  await cleanup();
});

const FAST = { idleMs: 20, pollIntervalMs: 10, maxPollIntervalMs: 20 } satisfies Partial<BatchOptions>;
/** The waits a run uses by default: for tests on a fake clock. */
const DEFAULT_WAITS = {
  idleMs: 2_000,
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 60_000,
} satisfies Partial<BatchOptions>;

function batchClient(spec: string, batch: Partial<BatchOptions> = {}, extra: { cacheDir?: string } = {}) {
  return createLlmClient(spec, {
    env: fakeProviderEnv(server),
    ledgerFile: join(dir, 'usage_ledger.jsonl'),
    baseBackoffMs: 5,
    limits: { maxAttempts: 4 },
    ...extra,
    batch: { stateDir: dir, ...FAST, ...batch },
  });
}

const questions = (n: number, prefix = 'q'): CompletionRequest[] =>
  Array.from({ length: n }, (_, i) => ({
    system: 'judge',
    messages: [{ role: 'user', content: `${prefix}${i}` }],
    maxTokens: 50,
  }));

function customIdOf(spec: string, request: CompletionRequest, at: FakeLlmServer = server): string {
  const [provider, model] = spec.split(':') as [string, string];
  const baseUrl = provider === 'anthropic' ? at.url : `${at.url}/v1`;
  return customIdFor(cacheKeyFor({ provider, model, baseUrl, request }));
}

/** Batches created since `from`, and how many batches each custom_id went into. */
function submissions(from: number) {
  const batches = server.batches.slice(from);
  const perRequest = new Map<string, number>();
  for (const batch of batches)
    for (const id of batch.customIds) perRequest.set(id, (perRequest.get(id) ?? 0) + 1);
  return { batches, perRequest };
}

async function stateFiles(): Promise<BatchState[]> {
  const folder = join(dir, 'batches');
  const names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => batchStateSchema.parse(JSON.parse(await readFile(join(folder, name), 'utf8')))),
  );
}

/** A fake whose batch uploads and creates take `latencyMs`, and a batch client of it. */
async function withSlowSubmissions(
  spec: string,
  latencyMs: number,
  maxRequestsPerBatch: number,
  run: (slow: FakeLlmServer, client: LlmClient) => Promise<void>,
): Promise<void> {
  const slow = await startFakeLlmServer({
    handler: (r) => ({ text: `answer to ${r.text}` }),
    batchSubmitLatencyMs: latencyMs,
    batchPlan: () => ({ pollsBeforeEnd: 1 }),
  });
  try {
    await run(
      slow,
      createLlmClient(spec, {
        env: fakeProviderEnv(slow),
        batch: { stateDir: dir, ...FAST, maxRequestsPerBatch },
      }),
    );
  } finally {
    await slow.close();
  }
}

const onlineRequests = () => server.requests.filter((r) => r.batchId === undefined).length;

describe.each(SPECS)('%s through the batch API', (spec) => {
  it('collects concurrent calls into batches under the request limit and answers each from its result', async () => {
    const before = server.batches.length;
    const onlineBefore = onlineRequests();
    const client = batchClient(spec, { maxRequestsPerBatch: 5 });
    expect(client.preferredConcurrency).toBe(spec.startsWith('anthropic') ? 100_000 : 50_000);
    const asked = questions(12);
    const results = await Promise.all(asked.map((q) => client.complete(q)));
    expect(results.map((r) => r.text)).toEqual(asked.map((_, i) => `answer to q${i}`));
    expect(results.every((r) => !r.fromCache && r.judgeId === spec)).toBe(true);
    const { batches, perRequest } = submissions(before);
    expect(batches.map((b) => b.customIds.length).sort()).toEqual([2, 5, 5]);
    expect([...perRequest.values()].every((n) => n === 1)).toBe(true);
    expect(perRequest.size).toBe(12);
    expect(onlineRequests()).toBe(onlineBefore);

    const states = await stateFiles();
    expect(states).toHaveLength(3);
    expect(states.map((s) => [s.status, s.missing])).toEqual(states.map(() => ['collected', []]));
    expect(new Set(states.map((s) => s.batchId))).toEqual(new Set(batches.map((b) => b.id)));
    expect(states.flatMap((s) => s.requests.map((r) => r.customId)).sort()).toEqual(
      asked.map((q) => customIdOf(spec, q)).sort(),
    );

    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    expect(ledger).toHaveLength(12);
    expect(ledger.every((line) => line.batch === true && line.ok && !line.cacheHit)).toBe(true);
    expect(new Set(ledger.map((line) => line.batchId))).toEqual(new Set(batches.map((b) => b.id)));
    // Priced at half the online price (claude-sonnet-4-5: $1.50 / $7.50; gpt-4o-mini: $0.075 / $0.30).
    const [input, output] = spec.startsWith('anthropic') ? [1.5, 7.5] : [0.075, 0.3];
    for (const line of ledger)
      expect(line.costUsd).toBeCloseTo((line.inputTokens * input + line.outputTokens * output) / 1e6, 9);
  });

  it('splits under the byte limit as well', async () => {
    const before = server.batches.length;
    const client = batchClient(spec, { maxBytesPerBatch: 4096 + 1500 });
    const asked = questions(9, 'x'.repeat(300));
    await Promise.all(asked.map((q) => client.complete(q)));
    const { batches } = submissions(before);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.reduce((sum, b) => sum + b.customIds.length, 0)).toBe(9);
  });

  it('makes one submission at a time, so only one batch body is in memory while it is sent', async () => {
    await withSlowSubmissions(spec, 80, 3, async (slow, client) => {
      const asked = questions(12, 'one at a time ');
      const results = await Promise.all(asked.map((q) => client.complete(q)));
      expect(results.map((r) => r.text)).toEqual(asked.map((_, i) => `answer to one at a time ${i}`));
      expect(slow.batches.map((b) => b.customIds.length)).toEqual([3, 3, 3, 3]);
      expect(slow.maxConcurrentBatchSubmissions).toBe(1);
    });
  });

  it(`makes batches of at most ${DEFAULT_MAX_BATCH_BYTES / 1e6} MB by default, and one of its own for a larger request`, async () => {
    const big = await startFakeLlmServer({ handler: () => ({ text: 'ok' }), keepRequests: false });
    try {
      const client = createLlmClient(spec, { env: fakeProviderEnv(big), batch: { stateDir: dir, ...FAST } });
      // Three requests of 0.4 of the default size (two fit in a batch, the third cannot), and one of
      // 1.1: over the default size, under the provider's limit, so it is sent alone, not refused.
      const sizes = [0.4, 0.4, 0.4, 1.1];
      const asked = sizes.map(
        (share, i) => questions(1, `${i}${'x'.repeat(Math.floor(DEFAULT_MAX_BATCH_BYTES * share))}`)[0]!,
      );
      const results = await Promise.all(asked.map((q) => client.complete(q)));
      expect(results.map((r) => r.text)).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect(big.batches.map((b) => b.customIds.length).sort()).toEqual([1, 1, 2]);
      const largest = customIdOf(spec, asked[3]!, big);
      expect(big.batches.find((b) => b.customIds.includes(largest))?.customIds).toEqual([largest]);
    } finally {
      await big.close();
    }
  });

  it('refuses a request larger than an explicit maxBytesPerBatch (too_large), or sends it online with the fallback', async () => {
    const asked = questions(1, `too large ${'y'.repeat(3_000)}`)[0]!;
    const strict = batchClient(spec, { maxBytesPerBatch: 4096 + 1500 });
    const before = server.batches.length;
    const error = await strict.complete(asked).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('too_large');
    expect((error as ProviderError).message).toMatch(/more than a batch may hold \(5596\)/);
    const onlineBefore = onlineRequests();
    const fallback = batchClient(spec, { maxBytesPerBatch: 4096 + 1500, fallback: 'online' });
    expect((await fallback.complete(asked)).text).toMatch(/^answer to too large y+/);
    expect(onlineRequests()).toBe(onlineBefore + 1);
    expect(server.batches.length).toBe(before);
  });

  it('never submits a request the disk cache answers', async () => {
    const cacheDir = join(dir, 'cache');
    const online = createLlmClient(spec, { env: fakeProviderEnv(server), cacheDir });
    const asked = questions(6, 'cached ');
    await Promise.all(asked.slice(0, 3).map((q) => online.complete(q)));
    const before = server.batches.length;
    const client = batchClient(spec, {}, { cacheDir });
    const results = await Promise.all(asked.map((q) => client.complete(q)));
    expect(results.map((r) => r.fromCache)).toEqual([true, true, true, false, false, false]);
    const { batches } = submissions(before);
    expect(batches.flatMap((b) => b.customIds).sort()).toEqual(
      asked
        .slice(3)
        .map((q) => customIdOf(spec, q))
        .sort(),
    );
    // The batch answers are now in the cache too: a second client asks nothing.
    const after = server.requestCount;
    const again = await Promise.all(asked.map((q) => online.complete(q)));
    expect(again.every((r) => r.fromCache)).toBe(true);
    expect(server.requestCount).toBe(after);
  });

  it('resubmits the entries of an expired batch that got no result, and only those', async () => {
    const before = server.batches.length;
    server.setBatchPlan(({ index }) =>
      index === before ? { outcome: 'expired', answered: 3 } : { pollsBeforeEnd: 1 },
    );
    const client = batchClient(spec);
    const asked = questions(7, 'expiring ');
    const results = await Promise.all(asked.map((q) => client.complete(q)));
    expect(results.map((r) => r.text)).toEqual(asked.map((_, i) => `answer to expiring ${i}`));
    const { batches, perRequest } = submissions(before);
    expect(batches.map((b) => b.customIds.length)).toEqual([7, 4]);
    expect([...perRequest.values()].filter((n) => n === 2)).toHaveLength(4);
    const first = (await stateFiles())[0];
    expect(first?.counts).toEqual({ succeeded: 3, errored: 0, expired: 4, canceled: 0, absent: 0 });
    expect(first?.providerStatus).toBe(spec.startsWith('anthropic') ? 'ended' : 'expired');
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    expect(ledger.filter((line) => line.ok)).toHaveLength(7);
    expect(ledger.filter((line) => line.retries === 1)).toHaveLength(4);
  });

  it('resubmits canceled and server-errored entries, fails a refused one at once with its custom_id', async () => {
    const before = server.batches.length;
    const seen = new Map<string, number>();
    server.setHandler((r) => {
      const count = (seen.get(r.text) ?? 0) + 1;
      seen.set(r.text, count);
      if (r.text === 'refused')
        return { fault: { kind: 'status', status: 400, message: 'prompt is too long' } };
      if (r.text === 'flaky' && count === 1) return { fault: { kind: 'status', status: 500 } };
      return { text: `answer to ${r.text}` };
    });
    const canceled = { system: 'judge', messages: [{ role: 'user' as const, content: 'canceled' }] };
    server.setBatchPlan(({ index }) =>
      index === before ? { entryOutcomes: { [customIdOf(spec, canceled)]: 'canceled' } } : {},
    );
    const client = batchClient(spec);
    const ask = (content: string) =>
      client.complete({ system: 'judge', messages: [{ role: 'user', content }] });
    const [flaky, refused, canceledResult] = await Promise.allSettled([
      ask('flaky'),
      ask('refused'),
      ask('canceled'),
    ]);
    expect(flaky).toMatchObject({ status: 'fulfilled', value: { text: 'answer to flaky' } });
    expect(canceledResult).toMatchObject({ status: 'fulfilled', value: { text: 'answer to canceled' } });
    expect(refused.status).toBe('rejected');
    const error = (refused as PromiseRejectedResult).reason as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('bad_request');
    const refusedId = customIdOf(spec, { system: 'judge', messages: [{ role: 'user', content: 'refused' }] });
    expect(error.message).toContain(refusedId);
    expect(error.message).toContain('prompt is too long');
    expect(error.message).toContain(server.batches[before]?.id);
    const { perRequest } = submissions(before);
    expect(perRequest.get(refusedId)).toBe(1);
    expect(perRequest.get(customIdOf(spec, canceled))).toBe(2);
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    const failed = ledger.filter((line) => !line.ok);
    expect(failed).toEqual([
      expect.objectContaining({ error: 'bad_request', batch: true, batchId: server.batches[before]?.id }),
    ]);
  });

  it('gives up after maxRounds batches with a ProviderError naming the custom_id and the reason', async () => {
    server.setBatchPlan(() => ({ outcome: 'expired', answered: 0 }));
    const before = server.batches.length;
    const client = batchClient(spec, { maxRounds: 2 });
    const request = questions(1, 'never ')[0] as CompletionRequest;
    const error = (await client.complete(request).catch((e: unknown) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('batch_expired');
    expect(error.message).toContain(customIdOf(spec, request));
    expect(error.message).toMatch(/expired .*no answer after 2 batch rounds/);
    expect(submissions(before).batches).toHaveLength(2);
  });

  it('with fallback online sends what a batch did not answer through the normal client', async () => {
    server.setBatchPlan(() => ({ outcome: 'expired', answered: 2 }));
    const before = server.batches.length;
    const onlineBefore = onlineRequests();
    const events: BatchEvent[] = [];
    const client = batchClient(spec, { fallback: 'online', onEvent: (e) => events.push(e) });
    const asked = questions(5, 'fallback ');
    const results = await Promise.all(asked.map((q) => client.complete(q)));
    expect(results.map((r) => r.text)).toEqual(asked.map((_, i) => `answer to fallback ${i}`));
    expect(submissions(before).batches).toHaveLength(1);
    expect(onlineRequests() - onlineBefore).toBe(3);
    expect(events.filter((e) => e.type === 'online')).toHaveLength(3);
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    expect(ledger.filter((line) => line.batch)).toHaveLength(2);
    expect(ledger.filter((line) => !line.batch && line.ok)).toHaveLength(3);
  });

  it('retries a refused upload or create (500, 429 with retry-after) without submitting twice', async () => {
    const before = server.batches.length;
    if (spec.startsWith('openai')) server.queueBatchFault('upload', { status: 500 }, 2);
    server.queueBatchFault('create', { status: 429, retryAfter: '0' });
    server.queueBatchFault('create', { status: 503 });
    const client = batchClient(spec);
    const results = await Promise.all(questions(4, 'upload ').map((q) => client.complete(q)));
    expect(results).toHaveLength(4);
    expect(submissions(before).batches).toHaveLength(1);
  });

  it('finds the batch a lost create made instead of making a second one', async () => {
    const before = server.batches.length;
    server.queueBatchFault('create', { kind: 'lost' });
    const client = batchClient(spec);
    const results = await Promise.all(questions(3, 'lost ').map((q) => client.complete(q)));
    expect(results.map((r) => r.text)).toEqual(['answer to lost 0', 'answer to lost 1', 'answer to lost 2']);
    const { batches } = submissions(before);
    expect(batches).toHaveLength(1);
    expect((await stateFiles())[0]?.batchId).toBe(batches[0]?.id);
  });

  it('a submission the provider refuses (400) fails the calls, or goes online with fallback online', async () => {
    server.queueBatchFault('create', { status: 400, message: 'batches are not enabled for this key' }, 2);
    const failing = batchClient(spec);
    const error = (await failing
      .complete(questions(1, 'refused batch ')[0] as CompletionRequest)
      .catch((e) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toContain('could not be submitted');
    expect(error.message).toContain('batches are not enabled for this key');
    expect((await stateFiles()).map((s) => s.status)).toEqual(['failed']);
    const onlineBefore = onlineRequests();
    const fallback = batchClient(spec, { fallback: 'online' });
    const result = await fallback.complete(questions(1, 'refused batch ')[0] as CompletionRequest);
    expect(result.text).toBe('answer to refused batch 0');
    expect(onlineRequests() - onlineBefore).toBe(1);
  });

  it('cancels a batch that passes its deadline and answers what it left online', async () => {
    server.setBatchPlan(() => ({ pollsBeforeEnd: Number.POSITIVE_INFINITY }));
    const before = server.batches.length;
    const events: BatchEvent[] = [];
    // The default waits (2 s idle, polls every 2 s … 60 s) and a 10-minute deadline, on a fake clock.
    const clock = new FakeClock();
    const stop = clock.autoAdvance();
    try {
      const client = batchClient(spec, {
        ...DEFAULT_WAITS,
        clock,
        deadlineMs: 10 * 60_000,
        fallback: 'online',
        onEvent: (e) => events.push(e),
      });
      const results = await Promise.all(questions(2, 'slow ').map((q) => client.complete(q)));
      expect(results.map((r) => r.text)).toEqual(['answer to slow 0', 'answer to slow 1']);
    } finally {
      stop();
    }
    expect(server.batches[before]?.canceled).toBe(true);
    const canceled = events.findIndex((e) => e.type === 'canceled');
    expect(canceled).toBeGreaterThan(0);
    // Polled at 2, 4, 8, 16, 32 s, then every minute: the cancel comes with the first poll past 10 min.
    const waits = events.slice(0, canceled).flatMap((e) => (e.type === 'polled' ? [e.nextPollMs] : []));
    expect(waits.slice(0, 6)).toEqual([4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(clock.pending).toBe(0);
  });

  it('drops a request whose caller aborted before submission', async () => {
    const before = server.batches.length;
    const clock = new FakeClock();
    const client = batchClient(spec, { ...DEFAULT_WAITS, clock });
    const controller = new AbortController();
    const [kept, dropped] = questions(2, 'abort ');
    const keptCall = client.complete(kept as CompletionRequest);
    const droppedCall = client.complete(dropped as CompletionRequest, { signal: controller.signal });
    controller.abort(new Error('caller went away'));
    await expect(droppedCall).rejects.toThrow('caller went away');
    const stop = clock.autoAdvance();
    try {
      await keptCall;
    } finally {
      stop();
    }
    expect(submissions(before).batches.map((b) => b.customIds)).toEqual([
      [customIdOf(spec, kept as CompletionRequest)],
    ]);
  });

  it('without a disk cache, a later client on the run reads a collected batch again instead of paying twice', async () => {
    const asked = questions(3, 'reread ');
    const first = batchClient(spec);
    const answers = await Promise.all(asked.map((q) => first.complete(q)));
    const before = server.batches.length;
    const again = await Promise.all(asked.map((q) => batchClient(spec).complete(q)));
    expect(again.map((r) => r.text)).toEqual(answers.map((r) => r.text));
    expect(server.batches.length).toBe(before);
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    // Billed once: the second reading is marked like a cache hit (and costs nothing).
    expect(ledger.filter((line) => !line.cacheHit)).toHaveLength(3);
    expect(ledger.filter((line) => line.cacheHit && line.batch && line.costUsd === 0)).toHaveLength(3);
    // --refresh asks for fresh answers: a new batch.
    const refreshed = createLlmClient(spec, {
      env: fakeProviderEnv(server),
      refresh: true,
      batch: { stateDir: dir, ...FAST },
    });
    await Promise.all(asked.map((q) => refreshed.complete(q)));
    expect(server.batches.length).toBe(before + 1);
  });

  it('holds no request list of a collected batch; a restarted client still answers from it, paying nothing twice', async () => {
    const asked = questions(10, 'bounded ');
    // At each collection, what the client holds is at most what is still out (10 less the collected).
    const heldAtCollection: Array<[number, number]> = [];
    let collected = 0;
    const first = batchClient(spec, {
      maxRequestsPerBatch: 4,
      onEvent: (event) => {
        if (event.type !== 'collected') return;
        collected += event.succeeded + event.missing;
        heldAtCollection.push([first.heldBatchRequests, 10 - collected]);
      },
    }) as BatchingClient;
    const before = server.batches.length;
    const answers = await Promise.all(asked.map((q) => first.complete(q)));
    expect(server.batches.length).toBe(before + 3);
    expect(heldAtCollection).toHaveLength(3);
    for (const [held, out] of heldAtCollection) expect(held).toBeLessThanOrEqual(out);
    expect(heldAtCollection.at(-1)).toEqual([0, 0]);
    expect(first.heldBatchRequests).toBe(0);
    const restarted = batchClient(spec) as BatchingClient;
    const again = await Promise.all(asked.map((q) => restarted.complete(q)));
    expect(again.map((r) => r.text)).toEqual(answers.map((r) => r.text));
    expect(server.batches.length).toBe(before + 3);
    expect(restarted.heldBatchRequests).toBe(0);
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    expect(ledger.filter((line) => !line.cacheHit)).toHaveLength(10);
    expect(ledger.filter((line) => line.cacheHit && line.costUsd === 0)).toHaveLength(10);
  });

  it("drops each request's rendered JSON once its batch is created, before the batch ends", async () => {
    server.setBatchPlan(() => ({ pollsBeforeEnd: Number.POSITIVE_INFINITY }));
    const held: Record<string, number> = {};
    const client = batchClient(spec, {
      onEvent: (event) => {
        if (event.type === 'submitted') held.atCreation = client.heldRequestBytes;
        if (event.type === 'polled') held.whilePolled ??= client.heldRequestBytes;
      },
    }) as BatchingClient;
    const asked = questions(5, 'rendered once ');
    const answers = Promise.all(asked.map((q) => client.complete(q)));
    while (held.whilePolled === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    server.releaseBatches();
    expect((await answers).map((r) => r.text)).toEqual(asked.map((_, i) => `answer to rendered once ${i}`));
    expect(held.atCreation).toBeGreaterThan(5 * 100);
    expect(held.whilePolled).toBe(0);
  });

  it('answers a request asked again after its first caller gave up while its batch waited to be submitted', async () => {
    await withSlowSubmissions(spec, 150, 1, async (slow, client) => {
      const [first, second] = questions(2, 'requeued ') as [CompletionRequest, CompletionRequest];
      const firstAnswer = client.complete(first);
      const controller = new AbortController();
      const abandoned = client
        .complete(second, { signal: controller.signal })
        .catch((error: unknown) => error);
      // The first submission is in flight (150 ms at the fake), the second's waits behind it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort(new Error('gave up'));
      expect(((await abandoned) as Error).message).toBe('gave up');
      const again = await Promise.race([
        client.complete(second),
        new Promise<string>((resolve) => setTimeout(() => resolve('no answer in 5 s'), 5_000)),
      ]);
      expect(typeof again === 'string' ? again : again.text).toBe('answer to requeued 1');
      expect((await firstAnswer).text).toBe('answer to requeued 0');
      for (const batch of slow.batches) expect(new Set(batch.customIds).size).toBe(batch.customIds.length);
    });
  });

  it('shares one entry between identical concurrent calls', async () => {
    const before = server.batches.length;
    const client = batchClient(spec);
    const request = questions(1, 'twice ')[0] as CompletionRequest;
    const [a, b] = await Promise.all([client.complete(request), client.complete(request)]);
    expect(a.text).toBe(b.text);
    expect(submissions(before).batches.map((x) => x.customIds.length)).toEqual([1]);
  });
});

describe('batch client wiring', () => {
  it('createLlmClient returns a BatchingClient for provider specs, and preferredConcurrencyFor agrees', () => {
    const options = {
      env: fakeProviderEnv(server),
      batch: { stateDir: dir, maxRequestsPerBatch: 700, maxPending: 2_000 },
    };
    const client = createLlmClient('anthropic:claude-x', options);
    expect(client).toBeInstanceOf(BatchingClient);
    expect(client.preferredConcurrency).toBe(2_000);
    expect(preferredConcurrencyFor('anthropic:claude-x', options)).toBe(2_000);
    expect(preferredConcurrencyFor('openai:gpt-x', { batch: { stateDir: dir } })).toBe(50_000);
    expect(preferredConcurrencyFor('anthropic:claude-x', { batch: { stateDir: dir } })).toBe(100_000);
    expect(preferredConcurrencyFor('openai:gpt-x', { limits: { maxConcurrency: 12 } })).toBe(12);
  });

  it('replay and record specs answer from their store, batch or not', async () => {
    const store = join(dir, 'store.jsonl');
    await writeFile(store, '');
    const client = createLlmClient(`replay:${store}`, { batch: { stateDir: dir } });
    expect(client).not.toBeInstanceOf(BatchingClient);
    await expect(client.complete({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(
      /no completion/,
    );
  });

  it('the fake server refuses a batch above its own limits (413), so a client limit above it fails loudly', async () => {
    const small = await startFakeLlmServer({
      batchLimits: { anthropic: { maxRequests: 2, maxBytes: 1_000_000 } },
    });
    try {
      const client = createLlmClient('anthropic:claude-test', {
        env: fakeProviderEnv(small),
        batch: { stateDir: dir, ...FAST },
      });
      const results = await Promise.allSettled(questions(3, 'big ').map((q) => client.complete(q)));
      expect(results.every((r) => r.status === 'rejected' && /HTTP 413/.test(String(r.reason)))).toBe(true);
      expect(small.batches).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  it('an OpenAI batch that fails validation is resubmitted, then fails naming the reason', async () => {
    server.setBatchPlan(() => ({ outcome: 'failed' }));
    const client = batchClient('openai:gpt-4o-mini', { maxRounds: 2 });
    const error = (await client
      .complete(questions(1, 'invalid ')[0] as CompletionRequest)
      .catch((e) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.code).toBe('batch_failed');
    expect(error.message).toContain('the batch failed validation');
    expect((await stateFiles()).map((s) => s.status)).toEqual(['collected', 'collected']);
  });

  it('requests of different models go into different batches (OpenAI takes one model per batch)', async () => {
    const before = server.batches.length;
    const client = batchClient('openai:gpt-4o-mini');
    await Promise.all([
      client.complete({ messages: [{ role: 'user', content: 'a' }] }),
      client.complete({ messages: [{ role: 'user', content: 'b' }], model: 'gpt-4.1-mini' }),
    ]);
    expect(submissions(before).batches).toHaveLength(2);
  });
});
