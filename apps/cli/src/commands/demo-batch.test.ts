import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonlAll } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { usageLedgerEntrySchema } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../testing-cli';
import { FAST_BATCH_CONFIG, REPO_ROOT } from '../testing-fixtures';
import { replayStoreJudge } from '../testing-judges';
import { readTree, treeDifferences, withoutCreatedAt } from '../testing-trees';

let server: FakeLlmServer;
let root: string;
let cleanup: () => Promise<void>;

/** Short batch timings for tests (config `batch`): collect for 150 ms of quiet, poll every 20–100 ms. */
const PLANNER_SYSTEM = 'You plan presentation slide decks';

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-demo-batch-'));
  // A model judge answering the demo's probe and weight prompts from its replay store, the deck planner
  // and stage 5 from the scripted judge: every stage of `xsb demo` gets valid answers from a provider.
  server = await startFakeLlmServer({
    handler: await replayStoreJudge(join(REPO_ROOT, 'fixtures/replay/demo.jsonl')),
  });
  await writeFile(join(root, 'xsb.config.json'), FAST_BATCH_CONFIG);
}, 60_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

// The report's slide thumbnails (LibreOffice, most of a demo's time) are no part of what batching changes.
const demo = (extra: string[], out: string) =>
  runXsb(['demo', '--judge', 'anthropic:demo-judge', '--out', out, '--thumbnails', 'off', ...extra], {
    cwd: root,
    // Each run its own answer cache, so the batched run asks the provider everything again.
    env: {
      ...fakeProviderEnv(server),
      PATH: process.env.PATH ?? '',
      XDG_CACHE_HOME: join(root, `cache-${out}`),
    },
  });

describe('xsb demo --batch with a model judge', () => {
  it('sends probes, weights and evaluation through batches (the deck planner online) and writes the online run’s artifacts', async () => {
    const before = server.requests.length;
    const online = await demo([], 'online');
    expect(online.code, online.stderr).toBe(0);
    const onlineRequests = server.requests.slice(before);
    expect(onlineRequests.every((request) => request.batchId === undefined)).toBe(true);
    const planned = onlineRequests.filter((request) => request.system.startsWith(PLANNER_SYSTEM));
    expect(planned.length).toBeGreaterThan(0);

    const batchesBefore = server.batches.length;
    const batched = await demo(['--batch'], 'batched');
    expect(batched.code, batched.stderr).toBe(0);
    expect(batched.stderr).toMatch(/batch msgbatch_\w+: submitted \d+ requests?/);
    const batchRequests = server.requests.slice(before + onlineRequests.length);
    // Stage 4 plans one deck at a time online; every other call went into a batch, each prompt once.
    const sentOnline = batchRequests.filter((request) => request.batchId === undefined);
    expect(sentOnline.every((request) => request.system.startsWith(PLANNER_SYSTEM))).toBe(true);
    expect(sentOnline).toHaveLength(planned.length);
    expect(batchRequests.length - sentOnline.length).toBe(onlineRequests.length - planned.length);
    expect(batchRequests.map((request) => request.text).sort()).toEqual(
      onlineRequests.map((request) => request.text).sort(),
    );
    // Probes, weights and stage 5 each waited for their batch: several batches, far fewer than calls.
    const made = server.batches.length - batchesBefore;
    expect(made).toBeGreaterThanOrEqual(3);
    expect(made).toBeLessThan(batchRequests.length / 4);

    const ledger = await readJsonlAll(
      join(root, 'batched', 'data', 'runs', 'demo', 'usage_ledger.jsonl'),
      usageLedgerEntrySchema,
    );
    const batchedStages = new Set(ledger.filter((line) => line.batch).map((line) => line.stage));
    expect([...batchedStages].sort()).toEqual(expect.arrayContaining(['probes', 'weights']));
    expect(ledger.filter((line) => line.batch)).toHaveLength(batchRequests.length - sentOnline.length);

    const skip = (path: string) => path.includes('batches/') || path.endsWith('usage_ledger.jsonl');
    const normalize = (path: string, bytes: Buffer) =>
      path.endsWith('run_manifest.json') ? withoutCreatedAt(bytes) : bytes;
    const a = await readTree(join(root, 'online', 'data'), skip);
    const b = await readTree(join(root, 'batched', 'data'), skip);
    expect(a.size).toBeGreaterThan(50);
    expect(treeDifferences(a, b, normalize)).toEqual([]);
  }, 180_000);
});
