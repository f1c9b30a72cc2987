import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir, prepareBenchData } from '@xsb/bench/testing';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../../testing-cli';
import { scriptedPipelineJudge } from '../../testing-judges';

let root: string;
let cleanup: () => Promise<void>;
let prepared: string;
let server: FakeLlmServer;

/** Short batch timings for tests (config `batch`). */
const BATCH_CONFIG = JSON.stringify({ batch: { idleMs: 150, pollIntervalMs: 20, maxPollIntervalMs: 100 } });

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeFastTempDir('xsb-bench-fill-'));
  prepared = await prepareBenchData(join(root, 'prepared'));
  server = await startFakeLlmServer({ handler: scriptedPipelineJudge });
}, 240_000);
afterAll(async () => {
  await server.close();
  await cleanup();
});

/** A workspace with its own data copy and config; returns its folder. */
async function workspace(name: string): Promise<string> {
  const dir = join(root, name);
  await cp(prepared, join(dir, 'data'), { recursive: true });
  await writeFile(join(dir, 'xsb.config.json'), BATCH_CONFIG);
  return dir;
}

const storeLines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean).sort();
const FILL = ['--fill', 'anthropic:claude-sonnet-4-5'];

describe('xsb bench run --llm record:STORE --fill … --batch', () => {
  it('fills the store through provider batches with the answers an online fill gets, then replays it offline', async () => {
    const env = fakeProviderEnv(server) as Record<string, string>;
    const bench = (dir: string, llm: string, extra: string[]) =>
      runXsb(['bench', 'run', '--data', 'data', '--run', 'demo', '--llm', llm, ...extra], { cwd: dir, env });

    const online = await workspace('online');
    const before = server.requests.length;
    const first = await bench(online, 'record:store.jsonl', FILL);
    expect(first.code, first.stderr).toBe(0);
    const onlineCalls = server.requests.slice(before);
    expect(onlineCalls.length).toBeGreaterThan(5);
    expect(onlineCalls.every((request) => request.batchId === undefined)).toBe(true);

    const batched = await workspace('batched');
    const batchesBefore = server.batches.length;
    const second = await bench(batched, 'record:store.jsonl', [...FILL, '--batch']);
    expect(second.code, second.stderr).toBe(0);
    const batchCalls = server.requests.slice(before + onlineCalls.length);
    expect(batchCalls.length).toBeGreaterThan(5);
    expect(batchCalls.every((request) => request.batchId?.startsWith('msgbatch_'))).toBe(true);
    expect(server.batches.length - batchesBefore).toBeGreaterThanOrEqual(1);
    // The same completions under the same keys, however they were fetched.
    const store = await storeLines(join(batched, 'store.jsonl'));
    expect(store.length).toBeGreaterThan(5);
    expect(store).toEqual(await storeLines(join(online, 'store.jsonl')));

    // The filled store answers a replay run with no call at all.
    const requestsNow = server.requests.length;
    const replay = await bench(batched, 'replay:store.jsonl', []);
    expect(replay.code, replay.stderr).toBe(0);
    expect(server.requests.length).toBe(requestsNow);
  }, 300_000);

  it('refuses --batch without --fill (exit 2)', async () => {
    const dir = await workspace('usage');
    const result = await runXsb(
      ['bench', 'run', '--data', 'data', '--run', 'demo', '--judge', 'lexical', '--batch'],
      {
        cwd: dir,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ERROR: --batch on a bench run applies to the model that fills the store/);
  });
});
