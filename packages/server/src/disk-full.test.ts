import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { type JobRunner, startJobWorker } from '@xsb/jobs';
import { fixtureDeck, writeJobsFixture } from '@xsb/jobs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTokenList } from './api-tokens';
import { type ApiServer, startApiServer } from './start-api-server';
import { bodyOf, deckForm, EVALUATE_TOKEN, TEST_TOKENS } from './testing-api';

/**
 * A real full file system: a small tmpfs the test mounts (root only). Under CI=true, where .ci/run
 * runs as root, not being able to mount fails the test instead of skipping it.
 */
function mountTmpfs(dir: string, megabytes: number): string | undefined {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  return mounted.status === 0
    ? undefined
    : `cannot mount a tmpfs here: ${mounted.stderr.trim() || mounted.error}`;
}

/** Writes a file until the file system refuses (ENOSPC): the disk is then full. */
async function fillDisk(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(256 * 1024, 7);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close().catch(() => {});
  }
  // What the last chunk left: smaller writes until nothing fits.
  const rest = await open(file, 'a');
  try {
    for (let size = 64 * 1024; size >= 1; size = Math.floor(size / 2))
      await rest.write(Buffer.alloc(size, 7)).catch(() => {});
  } finally {
    await rest.close().catch(() => {});
  }
}

let dir: string;
let cleanup: () => Promise<void>;
let mountPoint: string;
let unavailable: string | undefined;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-full-disk-'));
  mountPoint = join(dir, 'disk');
  await mkdir(mountPoint);
  unavailable = mountTmpfs(mountPoint, 12);
  if (!unavailable) mounts.push(mountPoint);
  if (unavailable && process.env.CI === 'true')
    throw new Error(`the full-disk test is mandatory under CI=true: ${unavailable}`);
});
const mounts: string[] = [];
afterAll(async () => {
  for (const mounted of mounts.reverse()) spawnSync('umount', ['-l', mounted]);
  await cleanup?.();
});

describe('xsb serve on a full disk (a real tmpfs)', () => {
  let server: ApiServer | undefined;
  let worker: JobRunner | undefined;
  afterAll(async () => {
    // The last upload's job may still be writing: let it finish before the folders go.
    await worker?.drain(30_000);
    await server?.shutdown();
  });

  it('answers uploads 507 at once and leaves no part, is not ready while full, and a job waits for space instead of failing', async (context) => {
    if (unavailable) context.skip(unavailable);
    const dataDir = join(mountPoint, 'data');
    await writeJobsFixture(dataDir, 6);
    const runsMount = join(dataDir, 'runs');
    await mkdir(runsMount, { recursive: true });
    const runsUnavailable = mountTmpfs(runsMount, 4);
    if (runsUnavailable) throw new Error(runsUnavailable);
    mounts.push(runsMount);
    server = await startApiServer({
      dataDir,
      port: 0,
      tokens: parseTokenList(TEST_TOKENS),
      env: {},
      workers: 0,
    });
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${server!.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${EVALUATE_TOKEN}`, ...(init.headers ?? {}) },
      });
    const upload = (deck: Buffer, system: string) =>
      call('/v1/evaluations', { method: 'POST', body: deckForm(deck, { case: 'pilot', system }) });

    // Accepted while there is room; it waits in the queue (no worker yet).
    const queued = await upload(fixtureDeck('queued'), 'gen-queued');
    expect(queued.status).toBe(202);
    const jobId = (await bodyOf(queued)).job_id as string;

    const filler = join(mountPoint, 'filler.bin');
    await fillDisk(filler);
    const tmpRoot = join(dataDir, 'api/tmp');
    for (const [deck, label] of [
      [Buffer.concat([fixtureDeck('big'), Buffer.alloc(3_000_000, 1)]), '3 MB'],
      [fixtureDeck('small'), 'small'],
    ] as const) {
      const started = performance.now();
      const answer = await upload(deck, `gen-${label.replace(' ', '')}`);
      expect(answer.status, label).toBe(507);
      expect(performance.now() - started, label).toBeLessThan(1000);
      expect(answer.headers.get('retry-after'), label).toMatch(/^\d+$/);
      const body = await bodyOf(answer);
      expect(body.error, label).toMatchObject({
        code: 'insufficient_storage',
        request_id: expect.any(String),
      });
      expect(JSON.stringify(body), label).not.toContain(dataDir);
    }
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await bodyOf(ready))).not.toMatch(/ENOSPC|\/tmp\/|api\/tmp/);
    const leftInTmp = async () =>
      (await readdir(tmpRoot, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(await leftInTmp()).toEqual([]);

    await rm(filler);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    // A worker meets a full disk while it writes the job's deck and artifacts (the runs folder on a
    // file system of its own, full; the job database has room): the job goes back to the queue, and
    // runs once space returns.
    const runsFiller = join(runsMount, 'filler.bin');
    await fillDisk(runsFiller);
    worker = startJobWorker({
      store: server.store,
      dataDir,
      env: {},
      heartbeatMs: 100,
      diskRetry: { attempts: 20, delayMs: 150 },
    });
    await expect
      .poll(async () => (await server!.store.get(jobId))?.attempts ?? 0, { timeout: 15_000, interval: 50 })
      .toBeGreaterThanOrEqual(2);
    expect((await server.store.get(jobId))?.status).not.toBe('failed');

    await rm(runsFiller);
    await expect
      .poll(async () => (await server!.store.get(jobId))?.status, { timeout: 30_000, interval: 100 })
      .toBe('done');
    const done = await server.store.get(jobId);
    expect(done?.executions.map((execution) => execution.outcome)).toContain('requeued');
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    expect(await leftInTmp()).toEqual([]);
    expect((await upload(fixtureDeck('after'), 'gen-after')).status).toBe(202);
    expect(existsSync(join(dataDir, 'runs/api/evaluations/gen-queued'))).toBe(true);
  }, 90_000);
});
