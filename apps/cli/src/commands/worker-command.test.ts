import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapWithConcurrency } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import type { StoredJob } from '@xsb/jobs';
import {
  emptyEvalAnswers,
  fixtureDeck,
  type RedisServer,
  redisServerUnavailable,
  startRedisServer,
  writeJobsFixture,
} from '@xsb/jobs/testing';
import { type FakeLlmServer, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnXsb, type XsbProcess } from '../testing-processes';

const TOKEN = 'worker-test-token-9a8b7c6d5e4f';
const JOBS = 50;
const PROBES = 24;
const missing = redisServerUnavailable();
if (missing && process.env.CI === 'true')
  throw new Error(`the Redis worker test is mandatory under CI=true: ${missing}`);

let redis: RedisServer;
let fake: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
const processes: XsbProcess[] = [];

/** Starts `xsb <args>` on the shared queue with a 2 s lease, judged by the fake server at `judgeUrl`. */
function starter(dataDir: string, judgeUrl: string): (args: string[]) => XsbProcess {
  const env = {
    XSB_API_TOKENS: `ci:${TOKEN}:evaluate+read`,
    OPENAI_API_KEY: 'sk-test-not-a-real-key',
    OPENAI_BASE_URL: `${judgeUrl}/v1`,
  };
  return (args) => {
    const child = spawnXsb([...args, '--data', dataDir, '--queue', redis.url, '--lease', '2'], {
      home: dir,
      env,
    });
    processes.push(child);
    return child;
  };
}

describe.skipIf(Boolean(missing))(`xsb worker --queue redis://… (${missing ?? 'redis-server found'})`, () => {
  beforeAll(async () => {
    redis = await startRedisServer();
    fake = await startFakeLlmServer({ handler: emptyEvalAnswers, latencyMs: 150 });
    ({ dir, cleanup } = await makeTempDir('xsb-workers-'));
  });
  afterAll(async () => {
    for (const child of processes) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
      await child.exited;
    }
    await fake?.close();
    await redis?.stop();
    await cleanup?.();
  });

  it('shares one queue between machines: two workers, 50 jobs, one worker SIGKILLed mid-job — all done, each once', async () => {
    const dataDir = join(dir, 'data');
    await writeJobsFixture(dataDir, PROBES);
    const start = starter(dataDir, fake.url);
    const server = start(['serve', '--port', '0', '--workers', '0']);
    const victim = start(['worker', '--workers', '2']);
    const survivor = start(['worker', '--workers', '2']);
    const url = (await server.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000))[1]!;
    const victimId = (await victim.waitFor(/xsb worker (\S+): running/, 120_000))[1]!;
    const survivorId = (await survivor.waitFor(/xsb worker (\S+): running/, 120_000))[1]!;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const get = async <T>(path: string) =>
      (await (await fetch(`${url}${path}`, { headers: auth })).json()) as T;

    const ids = await mapWithConcurrency(
      Array.from({ length: JOBS }, (_, i) => i),
      8,
      async (i) => {
        const form = new FormData();
        form.append('case', 'pilot');
        form.append('system', `gen-${i}`);
        form.append('audiences', 'learners');
        form.append('judge', 'openai:fake-judge');
        form.append('deck', new Blob([fixtureDeck(`v${i}`)]), 'deck.pptx');
        const response = await fetch(`${url}/v1/evaluations`, { method: 'POST', body: form, headers: auth });
        expect(response.status).toBe(202);
        return ((await response.json()) as { job_id: string }).job_id;
      },
    );
    expect(new Set(ids).size).toBe(JOBS);

    // Kill the victim while it holds a job, after both workers have finished some.
    const held = await eventually(
      async () => {
        const running = (await get<{ jobs: StoredJob[] }>('/v1/jobs?status=running&limit=100')).jobs;
        const done = (await get<{ jobs: StoredJob[] }>('/v1/jobs?status=done&limit=100')).jobs;
        const mine = running.find((job) => job.executions.at(-1)?.worker === victimId);
        return mine && done.length >= 3 ? mine.id : undefined;
      },
      'the victim worker to hold a job',
      120_000,
    );
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBeNull();

    const finished = await eventually(
      async () => {
        const done = (await get<{ jobs: StoredJob[] }>('/v1/jobs?status=done&limit=100')).jobs;
        return done.length === JOBS ? done : undefined;
      },
      'all 50 jobs to be done',
      240_000,
    );
    expect(finished.map((job) => job.id).sort()).toEqual([...ids].sort());
    for (const job of finished) {
      const done = job.executions.filter((e) => e.outcome === 'done');
      expect(done, `job ${job.id}`).toHaveLength(1);
      expect([victimId, survivorId]).toContain(done[0]!.worker);
    }
    // The victim was seen holding `held`; it may have finished it and taken the next queued job just
    // before the kill. Either way a job it held was cut off, and the survivor finished each such job.
    const cutOff = finished.filter((job) =>
      job.executions.some((e) => e.worker === victimId && e.finished_at === null && e.outcome === null),
    );
    expect(cutOff.length, `the victim was seen holding ${held}`).toBeGreaterThan(0);
    for (const job of cutOff)
      expect(job.executions.at(-1), `job ${job.id}`).toMatchObject({ worker: survivorId, outcome: 'done' });

    for (let i = 0; i < JOBS; i++) {
      const folder = join(dataDir, `runs/api/evaluations/gen-${i}/audience_agnostic/learners/pilot`);
      const rows = (await readFile(join(folder, 'probe_scores.jsonl'), 'utf8')).trim().split('\n');
      expect(new Set(rows.map((row) => JSON.parse(row).probe_id)).size).toBe(PROBES);
      expect(rows).toHaveLength(PROBES);
      expect(existsSync(join(folder, 'probe_scores.partial.jsonl'))).toBe(false);
      expect(JSON.parse(await readFile(join(folder, 'status.json'), 'utf8')).status).toBe('done');
      expect(await readdir(join(dataDir, `runs/api/decks/gen-${i}/audience_agnostic/all/pilot`))).toEqual([
        'deck.pptx',
      ]);
    }
    expect(await readdir(join(dataDir, 'api/uploads'))).toEqual([]);

    survivor.child.kill('SIGTERM');
    server.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(0);
    expect(await server.exited).toBe(0);
  }, 420_000);

  it('--lease reaches the queue from xsb serve and xsb worker: a job whose server is SIGKILLed is taken again within lease + 1 s', async () => {
    // Every judge call waits until the survivor holds the job: however slowly a loaded machine starts the
    // survivor, the victim is still mid-job when it is killed (a fixed latency let it finish first under load).
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const slow = await startFakeLlmServer({
      handler: async (request) => {
        await gate;
        return emptyEvalAnswers(request);
      },
    });
    try {
      const dataDir = join(dir, 'lease-data');
      await writeJobsFixture(dataDir, PROBES);
      const start = starter(dataDir, slow.url);
      const front = start(['serve', '--port', '0', '--workers', '0']);
      // The victim is a server with a worker of its own: its lease must reach the queue too.
      const victim = start(['serve', '--port', '0', '--workers', '1']);
      const url = (await front.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/, 120_000))[1]!;
      await victim.waitFor(/listening on/, 120_000);
      const auth = { authorization: `Bearer ${TOKEN}` };
      const form = new FormData();
      form.append('case', 'pilot');
      form.append('system', 'leased');
      form.append('audiences', 'learners');
      form.append('judge', 'openai:fake-judge');
      form.append('deck', new Blob([fixtureDeck('lease')]), 'deck.pptx');
      const posted = await fetch(`${url}/v1/evaluations`, { method: 'POST', body: form, headers: auth });
      expect(posted.status).toBe(202);
      const id = ((await posted.json()) as { job_id: string }).job_id;
      const read = async () =>
        (await (await fetch(`${url}/v1/jobs/${id}`, { headers: auth })).json()) as StoredJob;
      const victimWorker = await eventually(
        async () => {
          const job = await read();
          return job.status === 'running' ? job.executions.at(-1)?.worker : undefined;
        },
        'the victim to hold the job',
        120_000,
      );
      // The survivor starts only now, so the job cannot have gone to it first; it is idle when the lock lapses.
      const survivor = start(['worker', '--workers', '1']);
      const survivorWorker = (await survivor.waitFor(/xsb worker (\S+): running/, 120_000))[1]!;
      expect(survivorWorker).not.toBe(victimWorker);
      const beforeKill = await read();
      expect([beforeKill.status, beforeKill.executions.at(-1)?.worker]).toEqual(['running', victimWorker]);
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      await eventually(
        async () => ((await read()).executions.at(-1)?.worker === survivorWorker ? true : undefined),
        'the survivor to take the job',
        60_000,
      );
      expect(Date.now() - killedAt).toBeLessThan(2000 + 1000);
      openGate();
      await eventually(
        async () => ((await read()).status === 'done' ? true : undefined),
        'the job to end',
        120_000,
      );
      survivor.child.kill('SIGTERM');
      front.child.kill('SIGTERM');
      await survivor.exited;
      await front.exited;
    } finally {
      openGate();
      await slow.close();
    }
  }, 300_000);
});
