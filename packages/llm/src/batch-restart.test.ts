import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { readJsonlAll, writeFileAtomic } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toAnthropicBody } from './anthropic-adapter';
import { BatchingClient, customIdFor } from './batching-client';
import type { CompletionRequest } from './completion-types';
import { createLlmClient } from './create-llm-client';
import { cacheKeyFor } from './request-key';
import { type BatchState, batchStateSchema } from './schemas/batch-state';
import { usageLedgerEntrySchema } from './schemas/usage-ledger-entry';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

let server: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  server = await startFakeLlmServer({ handler: (r) => ({ text: `answer to ${r.text}` }) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-llm-batch-restart-'));
  server.setBatchPlan(() => ({}));
});
afterEach(async () => {
  await cleanup();
});

function startChild(
  spec: string,
  count: number,
): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'fixtures/batch-child.ts',
      server.url,
      dir,
      spec,
      String(count),
      join(dir, 'usage_ledger.jsonl'),
    ],
    { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, lines, exited };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function states(): Promise<BatchState[]> {
  const folder = join(dir, 'batches');
  const names = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort();
  return Promise.all(
    names.map(async (name) => batchStateSchema.parse(JSON.parse(await readFile(join(folder, name), 'utf8')))),
  );
}

const request = (i: number): CompletionRequest => ({
  system: 'judge',
  messages: [{ role: 'user', content: `question ${i}` }],
});

function customIdOf(spec: string, asked: CompletionRequest): string {
  const [provider, model] = spec.split(':') as [string, string];
  const baseUrl = provider === 'anthropic' ? server.url : `${server.url}/v1`;
  return customIdFor(cacheKeyFor({ provider, model, baseUrl, request: asked }));
}

describe.each(['anthropic:claude-test', 'openai:gpt-test'])('%s restart', (spec) => {
  it('a process killed (SIGKILL) after submission is restarted and polls the same batch: each request is submitted once', async () => {
    server.setBatchPlan(() => ({ pollsBeforeEnd: Number.POSITIVE_INFINITY }));
    const before = server.batches.length;
    const first = startChild(spec, 6);
    await until(() => first.lines.some((line) => line.includes('"type":"polled"')), 'the first poll');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const [written] = await states();
    expect(written?.status).toBe('submitted');
    expect(written?.batchId).toBe(server.batches[before]?.id);
    expect(written?.requests.map((r) => r.customId).sort()).toEqual(
      Array.from({ length: 6 }, (_, i) => customIdOf(spec, request(i))).sort(),
    );

    server.releaseBatches();
    const second = startChild(spec, 6);
    expect(await second.exited).toBe(0);
    expect(second.lines.some((line) => line.includes('"type":"resumed"'))).toBe(true);
    expect(second.lines.some((line) => line.includes('"type":"submitted"'))).toBe(false);
    const done = second.lines.find((line) => line.startsWith('done '));
    expect(JSON.parse(done?.slice(5) ?? '[]')).toEqual(
      Array.from({ length: 6 }, (_, i) => `answer to question ${i}`),
    );

    const made = server.batches.slice(before);
    expect(made).toHaveLength(1);
    expect(new Set(made[0]?.customIds).size).toBe(6);
    expect(
      server.requests.filter((r) => r.batchId === undefined && r.text.startsWith('question')),
    ).toHaveLength(0);
    const ledger = await readJsonlAll(join(dir, 'usage_ledger.jsonl'), usageLedgerEntrySchema);
    expect(ledger).toHaveLength(6);
    expect(ledger.every((line) => line.batch && line.batchId === made[0]?.id && !line.cacheHit)).toBe(true);
    expect((await states())[0]?.status).toBe('collected');
  }, 60_000);
});

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid as number;
}

async function writePreparing(spec: string, asked: CompletionRequest[]): Promise<BatchState> {
  const [provider, model] = spec.split(':') as ['anthropic', string];
  const record: BatchState = {
    v: 1,
    id: 'b-20000101T000000000-0000-abcdef',
    provider,
    judge: spec,
    model,
    baseUrl: server.url,
    status: 'preparing',
    round: 1,
    createdAt: new Date(Date.now() - 1000).toISOString(),
    owner: { pid: await deadPid(), host: hostname() },
    requests: asked.map((q) => {
      const key = cacheKeyFor({ provider, model, baseUrl: server.url, request: q });
      return { customId: customIdFor(key), key, stage: 'llm' };
    }),
  };
  await writeFileAtomic(join(dir, 'batches', `${record.id}.json`), JSON.stringify(record));
  return record;
}

/** A batch client on the test's run directory that submits 20 ms after its last request. */
function batchClient(spec: string, options: { idleMs?: number; ledgerFile?: string } = {}) {
  return createLlmClient(spec, {
    env: fakeProviderEnv(server),
    ...(options.ledgerFile ? { ledgerFile: options.ledgerFile } : {}),
    batch: { stateDir: dir, idleMs: options.idleMs ?? 20, pollIntervalMs: 10, maxPollIntervalMs: 20 },
  });
}

/** A client that queues its requests until flushed, and what it wrote to its ledger. */
async function queuedClient(spec: string, asked: CompletionRequest[]) {
  const ledgerFile = join(dir, 'late_ledger.jsonl');
  const late = batchClient(spec, { idleMs: 60_000, ledgerFile });
  if (!(late instanceof BatchingClient)) throw new Error('a batch client was expected');
  const answers = Promise.all(asked.map((q) => late.complete(q)));
  await until(() => late.pendingCount === asked.length, 'the requests to be queued');
  return { late, answers, ledger: () => readJsonlAll(ledgerFile, usageLedgerEntrySchema) };
}

describe('a submission interrupted before the batch id was stored', () => {
  const spec = 'anthropic:claude-test';
  const client = () => batchClient(spec);

  it('adopts the batch the provider made (found by its requests) instead of submitting again', async () => {
    const asked = [request(100), request(101), request(102)];
    const record = await writePreparing(spec, asked);
    // The create that the dead process made: it reached the provider, its answer never got stored.
    const sdk = new Anthropic({ apiKey: 'fake-anthropic-key', baseURL: server.url, maxRetries: 0 });
    const lost = await sdk.messages.batches.create({
      requests: record.requests.map(({ customId }, i) => ({
        custom_id: customId,
        params: toAnthropicBody(asked[i] as CompletionRequest, 'claude-test'),
      })),
    });
    const before = server.batches.length;
    const results = await Promise.all(asked.map((q) => client().complete(q)));
    expect(results.map((r) => r.text)).toEqual([
      'answer to question 100',
      'answer to question 101',
      'answer to question 102',
    ]);
    expect(server.batches.length).toBe(before);
    const [state] = await states();
    expect(state).toMatchObject({ status: 'collected', batchId: lost.id });
  });

  it('marks the record failed and submits its requests when the provider has no such batch', async () => {
    const asked = [request(200), request(201)];
    await writePreparing(spec, asked);
    const before = server.batches.length;
    const one = client();
    const results = await Promise.all(asked.map((q) => one.complete(q)));
    expect(results.map((r) => r.text)).toEqual(['answer to question 200', 'answer to question 201']);
    expect(server.batches.length - before).toBe(1);
    expect((await states()).map((s) => s.status)).toEqual(['failed', 'collected']);
  });

  it('two clients on one run directory submit a request once between them', async () => {
    const before = server.batches.length;
    const asked = [request(300), request(301), request(302)];
    const [a, b] = [client(), client()];
    const results = await Promise.all([
      ...asked.map((q) => a.complete(q)),
      ...asked.map((q) => b.complete(q)),
    ]);
    expect(results.map((r) => r.text)).toEqual(
      [...asked, ...asked].map((q) => `answer to ${q.messages[0]?.content}`),
    );
    const ids = server.batches.slice(before).flatMap((batch) => batch.customIds);
    expect(ids.sort()).toEqual(asked.map((q) => customIdOf(spec, q)).sort());
  });
});

describe.each(['anthropic:claude-test', 'openai:gpt-test'])(
  '%s: requests queued while another client of the run collected their batch',
  (spec) => {
    const client = () => batchClient(spec);

    it('answers requests from a batch another client collected while they waited to be submitted', async () => {
      const before = server.batches.length;
      const asked = [request(400), request(401)];
      const { late, answers, ledger } = await queuedClient(spec, asked);
      const first = client();
      const early = await Promise.all(asked.map((q) => first.complete(q)));
      expect((await states()).map((s) => s.status)).toEqual(['collected']);

      late.flush();
      expect((await answers).map((r) => r.text)).toEqual(early.map((r) => r.text));
      expect(server.batches.length - before).toBe(1);
      expect((await states()).map((s) => s.status)).toEqual(['collected']);
      // Answered from the stored results: nothing billed a second time.
      const lines = await ledger();
      expect(lines).toHaveLength(2);
      expect(lines.every((line) => line.cacheHit && line.batchId === server.batches[before]?.id)).toBe(true);
    });

    it('submits a request again when the results of that batch cannot be read, once; the next request reads them again', async () => {
      const before = server.batches.length;
      const [refused, later] = [request(500), request(501)];
      const { late, answers, ledger } = await queuedClient(spec, [refused]);
      const first = client();
      await Promise.all([refused, later].map((q) => first.complete(q)));
      server.queueBatchFault('results', { status: 403, message: 'results withheld' });

      late.flush();
      // The refused read sends the request back to the queue, not to the same batch again.
      await until(() => late.pendingCount === 1, 'the request to be queued again');
      expect(server.batchFaultsLeft()).toBe(0);
      // Another request of that batch reads its results again (the failed read was not kept).
      expect((await late.complete(later)).text).toBe('answer to question 501');
      expect(server.batches.length - before).toBe(1);
      late.flush();
      expect((await answers).map((r) => r.text)).toEqual(['answer to question 500']);
      expect(server.batches.length - before).toBe(2);
      expect(server.batches[before + 1]?.customIds).toEqual([customIdOf(spec, refused)]);
      const lines = await ledger();
      expect(lines.map((line) => Boolean(line.cacheHit))).toEqual([true, false]);
    });
  },
);
