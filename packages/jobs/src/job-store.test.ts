import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { InputError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type JobHandler, startJobRunner } from './job-runner';
import type { JobStore, StoredJob } from './job-store';
import { RedisJobStore } from './redis-job-store';
import type { ApiEvaluationRequest } from './schemas/api-request';
import { SqliteJobStore } from './sqlite-job-store';
import { enqueueInput, type RedisServer, redisServerUnavailable, startRedisServer } from './testing';

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const statusIs = (store: JobStore, id: string, status: StoredJob['status']) =>
  waitFor(async () => {
    const job = await store.get(id);
    return job?.status === status ? job : undefined;
  }, `job ${id} to be ${status}`);

const noHandler: JobHandler = async () => {
  throw new Error('unexpected job');
};

interface Backend {
  name: string;
  skip?: string;
  open(): Promise<JobStore>;
  teardown(): Promise<void>;
}

let redis: RedisServer | undefined;
const redisMissing = redisServerUnavailable();
if (redisMissing && process.env.CI === 'true') {
  throw new Error(`the Redis job-store tests are mandatory under CI=true: ${redisMissing}`);
}

const backends: Backend[] = [
  (() => {
    let cleanup: (() => Promise<void>) | undefined;
    const stores: JobStore[] = [];
    return {
      name: 'sqlite',
      async open() {
        const temp = await makeTempDir('xsb-jobs-sqlite-');
        cleanup = temp.cleanup;
        const store = new SqliteJobStore(join(temp.dir, 'jobs.sqlite'), { leaseMs: 2000, pollMs: 20 });
        stores.push(store);
        return store;
      },
      async teardown() {
        for (const store of stores.splice(0)) await store.close();
        await cleanup?.();
      },
    };
  })(),
  (() => {
    const stores: JobStore[] = [];
    return {
      name: 'redis',
      ...(redisMissing ? { skip: redisMissing } : {}),
      async open() {
        const store = new RedisJobStore(redis!.url, {
          prefix: `t${randomUUID().slice(0, 8)}`,
          lockDurationMs: 2000,
        });
        stores.push(store);
        return store;
      },
      async teardown() {
        for (const store of stores.splice(0)) await store.close();
      },
    };
  })(),
];

beforeAll(async () => {
  if (!redisMissing) redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(backends)('the $name job store', (backend) => {
  let store: JobStore;
  beforeEach(async (context) => {
    if (backend.skip) context.skip(backend.skip);
    store = await backend.open();
  });
  afterEach(() => backend.teardown());

  it('dedupes an active job, refuses another deck at a busy location, and frees both once it ends', async () => {
    const first = await store.enqueue(enqueueInput({ dedupe: 'k1', location: 'loc', sha: 'a' }));
    expect(first.outcome).toBe('created');
    expect(first.job).toMatchObject({
      status: 'queued',
      attempts: 0,
      submitted_by: 'ci',
      cancel_requested: false,
    });
    const again = await store.enqueue(enqueueInput({ dedupe: 'k1', location: 'loc', sha: 'a' }));
    expect(again).toMatchObject({ outcome: 'duplicate', job: { id: first.job.id } });
    const otherDeck = await store.enqueue(enqueueInput({ dedupe: 'k2', location: 'loc', sha: 'b' }));
    expect(otherDeck).toMatchObject({ outcome: 'location_busy', job: { id: first.job.id } });
    const sameDeckOtherAudiences = await store.enqueue(
      enqueueInput({ dedupe: 'k3', location: 'loc', sha: 'a' }),
    );
    expect(sameDeckOtherAudiences.outcome).toBe('created');

    expect((await store.cancel(first.job.id))?.outcome).toBe('canceled');
    expect((await store.cancel(sameDeckOtherAudiences.job.id))?.outcome).toBe('canceled');
    expect((await store.cancel(first.job.id))?.outcome).toBe('already_finished');
    expect(await store.cancel('no-such-job')).toBeUndefined();
    const afterwards = await store.enqueue(enqueueInput({ dedupe: 'k1', location: 'loc', sha: 'b' }));
    expect(afterwards.outcome).toBe('created');
  });

  it('lists newest first, by status, a page at a time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await store.enqueue(enqueueInput())).job.id);
    await store.cancel(ids[1]!);
    const first = await store.list({ limit: 2 });
    expect(first.jobs.map((j) => j.id)).toEqual([ids[4], ids[3]]);
    const second = await store.list({ limit: 2, cursor: first.nextCursor! });
    expect(second.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    const last = await store.list({ limit: 2, cursor: second.nextCursor! });
    expect(last).toMatchObject({ jobs: [{ id: ids[0] }], nextCursor: null });
    const canceled = await store.list({ status: 'canceled', limit: 10 });
    expect(canceled.jobs.map((j) => j.id)).toEqual([ids[1]]);
    expect((await store.list({ status: 'queued', limit: 10 })).jobs).toHaveLength(4);
  });

  it('runs a job to its result with progress and one execution record; a failing handler fails it with its code', async () => {
    const runner = startJobRunner({
      store,
      concurrency: 2,
      heartbeatMs: 50,
      handlers: {
        evaluation: async (job, context) => {
          context.reportProgress({ phase: 'evaluating', done: 1, total: 1, message: null });
          if ((job.request as ApiEvaluationRequest).deck.sha256.startsWith('bad'))
            throw new InputError('the deck cannot be read', { code: 'corrupt_zip' });
          return { ok: job.id };
        },
        rubric_evaluation: noHandler,
      },
    });
    try {
      const good = (await store.enqueue(enqueueInput())).job;
      const bad = (await store.enqueue(enqueueInput({ sha: 'bad' }))).job;
      const done = await statusIs(store, good.id, 'done');
      expect(await store.result(good.id)).toEqual({ ok: good.id });
      expect(done.progress).toMatchObject({ phase: 'evaluating', done: 1, total: 1 });
      expect(done.executions).toEqual([
        expect.objectContaining({
          attempt: 1,
          worker: runner.worker,
          outcome: 'done',
          finished_at: expect.any(String),
        }),
      ]);
      const failed = await statusIs(store, bad.id, 'failed');
      expect(failed.error).toEqual({ code: 'corrupt_zip', message: 'the deck cannot be read' });
      expect(await store.result(bad.id)).toBeUndefined();
    } finally {
      await runner.drain(1000);
    }
  });

  it('stops a running job on cancel, and fences writes of an attempt that lost its job', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const runner = startJobRunner({
      store,
      concurrency: 1,
      heartbeatMs: 20,
      handlers: {
        evaluation: (_job, context) =>
          new Promise((_, reject) => {
            started();
            context.signal.addEventListener('abort', () => reject(context.signal.reason));
          }),
        rubric_evaluation: noHandler,
      },
    });
    try {
      const job = (await store.enqueue(enqueueInput())).job;
      await running;
      expect((await store.cancel(job.id))?.outcome).toBe('cancel_requested');
      const canceled = await statusIs(store, job.id, 'canceled');
      expect(canceled.cancel_requested).toBe(true);
      expect(canceled.executions[0]?.outcome).toBe('canceled');
      expect(await store.finish(job.id, 1, { status: 'done', result: 1 })).toBe(false);
      expect(await store.requeue(job.id, 1)).toBe(false);
      expect((await store.get(job.id))?.status).toBe('canceled');
    } finally {
      await runner.drain(1000);
    }
  });

  it('checkpoints jobs still running at the drain deadline as queued, and another worker finishes them', async () => {
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = startJobRunner({
      store,
      concurrency: 1,
      worker: 'first',
      handlers: {
        evaluation: async () => {
          await stuck;
          return 'late';
        },
        rubric_evaluation: noHandler,
      },
    });
    const job = (await store.enqueue(enqueueInput())).job;
    await statusIs(store, job.id, 'running');
    const drained = await first.drain(100);
    expect(drained.requeued).toEqual([job.id]);
    expect((await store.get(job.id))?.status).toBe('queued');
    release();

    const second = startJobRunner({
      store,
      concurrency: 1,
      worker: 'second',
      handlers: { evaluation: async () => 'second', rubric_evaluation: noHandler },
    });
    try {
      const done = await statusIs(store, job.id, 'done');
      expect(await store.result(job.id)).toBe('second');
      expect(done.executions.map((e) => [e.worker, e.outcome])).toEqual([
        ['first', 'requeued'],
        ['second', 'done'],
      ]);
    } finally {
      await second.drain(1000);
    }
  });
});

describe('the SQLite job store after a crash', () => {
  it('queues again a running job whose lease ran out', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-jobs-lease-');
    const store = new SqliteJobStore(join(dir, 'jobs.sqlite'), { leaseMs: 50 });
    try {
      const job = (await store.enqueue(enqueueInput())).job;
      const claimed = store.claimNext('gone');
      expect(claimed).toMatchObject({ attempt: 1, job: { id: job.id, status: 'running' } });
      expect(store.recoverAbandoned()).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(store.recoverAbandoned()).toBe(1);
      const queued = await store.get(job.id);
      expect(queued).toMatchObject({ status: 'queued', attempts: 1 });
      expect(queued?.executions).toEqual([
        expect.objectContaining({ worker: 'gone', finished_at: null, outcome: null }),
      ]);
      expect(store.claimNext('next')?.attempt).toBe(2);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

describe('the SQLite job store read cache', () => {
  it('answers a job read again from memory, and never an older state than the database holds', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-jobs-cache-');
    const file = join(dir, 'jobs.sqlite');
    const reader = new SqliteJobStore(file);
    const writer = new SqliteJobStore(file);
    try {
      const job = (await reader.enqueue(enqueueInput())).job;
      const first = await reader.get(job.id);
      expect(await reader.get(job.id)).toBe(first);
      expect(Object.isFrozen(first?.progress)).toBe(true);

      // Another connection (another process in production) claims it, reports progress, finishes it.
      const claimed = writer.claimNext('elsewhere');
      expect(claimed?.attempt).toBe(1);
      expect(await reader.get(job.id)).toMatchObject({ status: 'running', attempts: 1 });
      await writer.progress(job.id, 1, { phase: 'judging', done: 2, total: 5, message: null });
      expect((await reader.get(job.id))?.progress).toMatchObject({ done: 2, total: 5 });
      await writer.finish(job.id, 1, { status: 'done', result: { ok: true } });
      const done = await reader.get(job.id);
      expect(done).toMatchObject({
        status: 'done',
        executions: [expect.objectContaining({ outcome: 'done' })],
      });

      // This connection's own write is seen at once too.
      const second = (await reader.enqueue(enqueueInput())).job;
      expect(await reader.get(second.id)).toMatchObject({ status: 'queued', cancel_requested: false });
      await reader.cancel(second.id);
      expect(await reader.get(second.id)).toMatchObject({ status: 'canceled' });
      expect(await writer.get(second.id)).toMatchObject({ status: 'canceled' });
    } finally {
      await reader.close();
      await writer.close();
      await cleanup();
    }
  });
});
