import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { ApiDataLayout, SqliteJobStore, type StoredJob } from '@xsb/jobs';
import { emptyEvalAnswers, fixtureDeck, writeJobsFixture } from '@xsb/jobs/testing';
import { type FakeLlmServer, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runXsb } from '../testing-cli';
import { eventually, spawnXsb, type XsbProcess } from '../testing-processes';

const TOKEN = 'serve-test-token-1b2c3d4e5f60';
const PROBES = 24;

let fake: FakeLlmServer;
let dir: string;
let cleanup: () => Promise<void>;
let dataDir: string;
const processes: XsbProcess[] = [];

beforeAll(async () => {
  fake = await startFakeLlmServer({ handler: emptyEvalAnswers, latencyMs: 400 });
});
afterAll(() => fake.close());
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-serve-'));
  dataDir = join(dir, 'data');
  await writeJobsFixture(dataDir, PROBES);
});
afterEach(async () => {
  for (const child of processes.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await child.exited;
  }
  await cleanup();
});

function serve(extra: string[] = []): XsbProcess {
  const child = spawnXsb(['serve', '--data', dataDir, '--port', '0', '--lease', '2', ...extra], {
    home: dir,
    env: {
      XSB_API_TOKENS: `ci:${TOKEN}:evaluate+read`,
      OPENAI_API_KEY: 'sk-test-not-a-real-key',
      OPENAI_BASE_URL: `${fake.url}/v1`,
    },
  });
  processes.push(child);
  return child;
}

async function urlOf(child: XsbProcess): Promise<string> {
  return (await child.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
}

async function postDeck(url: string, variant: string): Promise<string> {
  const form = new FormData();
  form.append('case', 'pilot');
  form.append('system', 'gen');
  form.append('judge', 'openai:fake-judge');
  form.append('deck', new Blob([fixtureDeck(variant)]), 'deck.pptx');
  const response = await fetch(`${url}/v1/evaluations`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job_id: string }).job_id;
}

async function jobOver(url: string, id: string): Promise<StoredJob> {
  const response = await fetch(`${url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return (await response.json()) as StoredJob;
}

async function finishedJob(url: string, id: string): Promise<StoredJob> {
  return eventually(async () => {
    const job = await jobOver(url, id);
    return ['done', 'failed', 'canceled'].includes(job.status) ? job : undefined;
  }, `job ${id} to finish`);
}

/** Every evaluation of the job is whole: one score row per probe, no partial file, a done status. */
async function expectWholeEvaluations(): Promise<void> {
  for (const audience of ['learners', 'decision_makers']) {
    const folder = join(dataDir, 'runs/api/evaluations/gen/audience_agnostic', audience, 'pilot');
    const rows = (await readFile(join(folder, 'probe_scores.jsonl'), 'utf8')).trim().split('\n');
    expect(rows).toHaveLength(PROBES);
    expect(new Set(rows.map((row) => JSON.parse(row).probe_id)).size).toBe(PROBES);
    expect(existsSync(join(folder, 'probe_scores.partial.jsonl'))).toBe(false);
    expect(JSON.parse(await readFile(join(folder, 'status.json'), 'utf8')).status).toBe('done');
    expect(existsSync(join(folder, 'metrics.json'))).toBe(true);
  }
  expect(await readdir(join(dataDir, 'runs/api/decks/gen/audience_agnostic/all/pilot'))).toEqual([
    'deck.pptx',
  ]);
  expect(await readdir(new ApiDataLayout(dataDir).uploadsDir())).toEqual([]);
}

describe('xsb serve', () => {
  it('finishes a job after kill -9 mid-job and a restart, without duplicated artifacts', async () => {
    const first = serve();
    const url = await urlOf(first);
    const id = await postDeck(url, 'kill');
    await eventually(async () => (fake.requestCount >= 2 ? true : undefined), 'the judge to be called');
    expect((await jobOver(url, id)).status).toBe('running');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    const store = new SqliteJobStore(new ApiDataLayout(dataDir).databaseFile());
    const killed = await store.get(id);
    await store.close();
    expect(killed).toMatchObject({ status: 'running', attempts: 1 });
    expect(killed?.executions).toEqual([
      expect.objectContaining({ attempt: 1, finished_at: null, outcome: null }),
    ]);

    const second = serve();
    const done = await finishedJob(await urlOf(second), id);
    expect(done.status).toBe('done');
    expect(done.executions.map((e) => [e.attempt, e.outcome])).toEqual([
      [1, null],
      [2, 'done'],
    ]);
    await expectWholeEvaluations();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('drains on SIGTERM: refuses new work, checkpoints the running job as queued, and the next start finishes it', async () => {
    const first = serve(['--drain-timeout', '0']);
    const url = await urlOf(first);
    const id = await postDeck(url, 'drain');
    await eventually(
      async () => ((await jobOver(url, id)).status === 'running' ? true : undefined),
      'the job to run',
    );
    first.child.kill('SIGTERM');
    await first.waitFor(/stopped \(0 jobs finished while draining, 1 queued again\)/);
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('checkpointed 1 running job as queued');

    const second = serve();
    const done = await finishedJob(await urlOf(second), id);
    expect(done.executions.map((e) => e.outcome)).toEqual(['requeued', 'done']);
    await expectWholeEvaluations();
  }, 120_000);

  it('serves from two processes with --processes 2: both answer, a job finishes, a killed member is replaced, SIGTERM stops all', async () => {
    const primary = serve(['--processes', '2']);
    const url = (
      await primary.waitFor(/xsb serve: listening on (http:\/\/127\.0\.0\.1:\d+) \(2 processes;/)
    )[1]!;
    // A fresh connection per request: the cluster hands connections to its members in turn.
    const healthOverNewConnection = () =>
      new Promise<number>((resolveStatus, reject) => {
        get(`${url}/healthz`, { agent: false }, (response) => {
          response.resume();
          response.on('end', () => resolveStatus(response.statusCode ?? 0));
        }).on('error', reject);
      });
    for (let i = 0; i < 6; i++) expect(await healthOverNewConnection()).toBe(200);
    // The log is one JSON object per line: each member's lines carry its index and pid.
    await primary.waitFor(/\{[^\n]*"process":0,[^\n]*"path":"\/healthz","status":200[^\n]*\}/);
    const member = await primary.waitFor(
      /\{"level":\d+,"time":"[^"]+","pid":(\d+),[^\n]*"process":1,[^\n]*"path":"\/healthz","status":200[^\n]*\}/,
    );

    const id = await postDeck(url, 'cluster');
    expect((await finishedJob(url, id)).status).toBe('done');
    await expectWholeEvaluations();
    // Only process 0 runs job workers: the other serves HTTP.
    expect(primary.output()).toMatch(/"process":0,"msg":"listening on [^\n]* 2 workers\)"/);
    expect(primary.output()).toMatch(/"process":1,"msg":"listening on [^\n]* 0 workers\)"/);

    const killedPid = Number(member[1]);
    process.kill(killedPid, 'SIGKILL');
    await primary.waitFor(
      new RegExp(`API process 1 \\(pid ${killedPid}\\) exited \\(SIGKILL\\); starting another`),
    );
    const replaced = await primary.waitFor(
      new RegExp(`"pid":(?!${killedPid},)(\\d+),[^\\n]*"process":1,"msg":"listening on`),
    );
    expect(Number(replaced[1])).not.toBe(killedPid);
    for (let i = 0; i < 4; i++) expect(await healthOverNewConnection()).toBe(200);

    primary.child.kill('SIGTERM');
    await primary.waitFor(/xsb serve: stopped \(0 jobs finished while draining, 0 queued again\)/);
    expect(await primary.exited).toBe(0);
    expect(() => process.kill(Number(replaced[1]), 0)).toThrow();
  }, 120_000);

  it('stops with a usage error for a bad flag or a missing data folder', async () => {
    const port = await runXsb(['serve', '--data', dataDir, '--port', '70000', '--insecure-local'], {
      cwd: dir,
    });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be at most 65535');
    const missing = await runXsb(['worker', '--data', join(dir, 'nope')], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/ERROR: data folder .*nope does not exist/);
    const queue = await runXsb(['worker', '--data', dataDir, '--queue', 'amqp://x'], { cwd: dir });
    expect(queue.stderr).toContain('--queue must be redis://HOST:PORT');
  });
});
