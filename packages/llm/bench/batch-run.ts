// A batch run through the real SDKs against the fake server in its own process: N requests at the
// client's preferred concurrency, batches of at most 1,000, each batch processing for 1 s.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapWithConcurrency } from '@xsb/core';
import type { BatchEvent } from '../src/batching-client';
import { createLlmClient } from '../src/create-llm-client';
import { envFor, serveInChild } from './fake-server-process';

const REQUESTS = 3_000;
const PER_BATCH = 1_000;
const PROCESSING_MS = 1_000;

export async function batchRun(spec: string): Promise<string> {
  const server = await serveInChild(0, { batchProcessingMs: PROCESSING_MS });
  const dir = await mkdtemp(join(tmpdir(), 'xsb-llm-bench-batch-'));
  const events: BatchEvent[] = [];
  const client = createLlmClient(spec, {
    env: envFor(server.url),
    cacheDir: join(dir, 'cache'),
    ledgerFile: join(dir, 'usage_ledger.jsonl'),
    batch: {
      stateDir: dir,
      maxRequestsPerBatch: PER_BATCH,
      idleMs: 200,
      pollIntervalMs: 250,
      maxPollIntervalMs: 1_000,
      onEvent: (event) => events.push(event),
    },
  });
  const started = performance.now();
  let firstSubmitted = 0;
  const items = Array.from({ length: REQUESTS }, (_, i) => i);
  await mapWithConcurrency(items, client.preferredConcurrency ?? 1, async (i) => {
    const result = await client.complete({
      system: 'Judge the checklist item.',
      messages: [{ role: 'user', content: `deck ${i % 50}, item ${i}: does the deck state the Q3 growth?` }],
      maxTokens: 200,
    });
    if (firstSubmitted === 0) firstSubmitted = performance.now();
    return result.text;
  });
  const seconds = (performance.now() - started) / 1000;
  await rm(dir, { recursive: true, force: true });
  await server.stop();
  const submitted = events.filter((e) => e.type === 'submitted');
  const bytes = submitted.reduce((sum, e) => sum + (e.type === 'submitted' ? e.bytes : 0), 0);
  const polls = events.filter((e) => e.type === 'polled').length;
  return `${spec.padEnd(24)} batch run of ${REQUESTS} requests (≤ ${PER_BATCH} a batch, each processing ${PROCESSING_MS} ms at the fake server): ${submitted.length} submissions (${(bytes / 1e6).toFixed(2)} MB), ${polls} polls, wall ${seconds.toFixed(2)} s (${(REQUESTS / seconds).toFixed(0)} answers/s incl. cache + ledger writes)`;
}
