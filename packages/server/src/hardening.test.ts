import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixtureDeck } from '@xsb/jobs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  bodyOf,
  deckForm,
  EVALUATE_TOKEN,
  leftovers,
  logRecords,
  POSTER_TOKEN,
  READ_TOKEN,
  startTestApi,
  type TestApi,
  waitForJob,
} from './testing-api';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

const post = (target: TestApi, fields: Record<string, string | string[]>, token = EVALUATE_TOKEN) =>
  target.call('/v1/evaluations', { method: 'POST', body: deckForm(fixtureDeck('h1'), fields), token });

describe('xsb serve: its log cannot be forged', () => {
  it('writes one JSON object per line with a request id; CR, LF and NUL in a URL stay inside their string', async () => {
    api = await startTestApi({ workers: 0 });
    const hostile = [
      '/nope%0d%0aFORGED-UNAUTH-LINE',
      '/v1/jobs/x%0ajob%20FORGED%20done%20(attempt%201)',
      '/nul%00byte',
    ];
    const ids: string[] = [];
    for (const path of hostile) {
      const response = await api.call(path, { token: null });
      const body = await bodyOf(response);
      expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
      ids.push(body.error.request_id);
    }
    await api.call('/v1/jobs', { token: `${EVALUATE_TOKEN}-wrong` });
    for (const line of api.logs) {
      expect(line).not.toMatch(/[\r\n\0]/);
      expect(line.startsWith('{')).toBe(true);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    const requests = logRecords(api).filter((record) => record.msg === 'request');
    expect(requests.every((record) => typeof record.req_id === 'string')).toBe(true);
    for (const id of ids) expect(requests.some((record) => record.req_id === id)).toBe(true);
    expect(requests.map((record) => record.path)).toContain('/nope\r\nFORGED-UNAUTH-LINE');
    expect(api.logs.some((line) => /^FORGED|^job FORGED/.test(line))).toBe(false);
  });
});

describe('xsb serve: failed logins are slowed per client address', () => {
  it('answers 429 with Retry-After after the allowance of failures, and lets a valid token through', async () => {
    api = await startTestApi({ workers: 0, authFailuresPerMinute: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await api.call('/v1/jobs', { token: `not-a-valid-token-${i}` })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    const limited = await api.call('/v1/jobs', { token: null });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.call('/v1/jobs')).status).toBe(200);
    expect((await api.call('/v1/jobs', { token: READ_TOKEN })).status).toBe(200);
  });
});

describe('xsb serve: names are checked at the door', () => {
  it('refuses dots, hidden and reserved names and a field sent twice with 400 naming the field, writing nothing', async () => {
    api = await startTestApi({ workers: 1 });
    const refused: Array<[Record<string, string | string[]>, string]> = [
      [{ case: 'pilot', system: '.' }, 'system'],
      [{ case: 'pilot', system: 'gen', run: '.' }, 'run'],
      [{ case: 'pilot', system: '.git' }, 'system'],
      [{ case: 'pilot', system: 'NUL' }, 'system'],
      [{ case: 'pilot', system: 'com1.txt' }, 'system'],
      [{ case: 'pilot', system: 'gen', run: '..' }, 'run'],
      [{ case: ['../../etc', 'pilot'], system: 'gen' }, 'case'],
      [{ case: 'pilot', system: ['a', 'b'] }, 'system'],
      [{ case: 'pilot', system: 'gen', judge: ['lexical', 'lexical'] }, 'judge'],
    ];
    for (const [fields, field] of refused) {
      const answer = await post(api, fields);
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect((await bodyOf(answer)).error.message, JSON.stringify(fields)).toContain(`field "${field}"`);
    }
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
    expect(existsSync(join(api.dataDir, 'runs/api'))).toBe(false);
    expect((await bodyOf(await api.call('/v1/jobs', { token: ADMIN_TOKEN }))).jobs).toEqual([]);
  });

  it('refuses a system outside the configured list (api.systems) with 400 naming the field, writing nothing', async () => {
    api = await startTestApi({ workers: 0, systems: ['gen-a', 'gen-b'] });
    const unknown = await post(api, { case: 'pilot', system: 'gen-c' });
    expect(unknown.status).toBe(400);
    expect((await bodyOf(unknown)).error.message).toMatch(
      /^field "system": unknown system "gen-c" \(did you mean "gen-a"\?\); this server takes decks of: gen-a, gen-b$/,
    );
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
    expect((await post(api, { case: 'pilot', system: 'gen-b' })).status).toBe(202);
  });

  it('serves replay stores only from <data>/replay/, with one answer for missing and not allowed', async () => {
    api = await startTestApi({ workers: 0 });
    await mkdir(join(api.dataDir, 'replay'), { recursive: true });
    await writeFile(join(api.dataDir, 'replay/demo.jsonl'), '');
    const messages = new Set<string>();
    for (const judge of ['replay:api/jobs.sqlite', 'replay:api', 'replay:nope.jsonl', 'replay:../x.jsonl']) {
      const answer = await post(api, { case: 'pilot', system: 'gen', judge });
      expect(answer.status, judge).toBe(400);
      const { message } = (await bodyOf(answer)).error;
      expect(message, judge).not.toContain(api.dataDir);
      expect(message, judge).not.toMatch(/SQLite|EISDIR/);
      messages.add(message);
    }
    expect(messages.size).toBe(1);
    expect((await post(api, { case: 'pilot', system: 'gen', judge: 'replay:demo.jsonl' })).status).toBe(202);
  });
});

describe('xsb serve: a token reads and cancels its own jobs', () => {
  it('hides other tokens’ jobs (404), lets admin read and cancel all, and answers OPTIONS without a token', async () => {
    api = await startTestApi({ workers: 0 });
    const mine = (await bodyOf(await post(api, { case: 'pilot', system: 'gen-ci' }))).job_id as string;
    const theirs = (await bodyOf(await post(api, { case: 'pilot', system: 'gen-poster' }, POSTER_TOKEN)))
      .job_id as string;
    const listed = async (token: string) =>
      ((await bodyOf(await api!.call('/v1/jobs', { token }))).jobs as Array<{ id: string }>).map(
        (job) => job.id,
      );
    expect(await listed(EVALUATE_TOKEN)).toEqual([mine]);
    expect(await listed(POSTER_TOKEN)).toEqual([theirs]);
    expect(await listed(READ_TOKEN)).toEqual([]);
    expect((await listed(ADMIN_TOKEN)).sort()).toEqual([mine, theirs].sort());
    for (const path of [`/v1/jobs/${theirs}`, `/v1/jobs/${theirs}/result`, `/v1/jobs/${theirs}/events`])
      expect((await api.call(path)).status, path).toBe(404);
    expect((await api.call(`/v1/jobs/${theirs}`, { method: 'DELETE' })).status).toBe(404);
    expect((await api.call(`/v1/jobs/${theirs}`, { token: POSTER_TOKEN })).status).toBe(200);
    const canceled = await api.call(`/v1/jobs/${theirs}`, { method: 'DELETE', token: ADMIN_TOKEN });
    expect(canceled.status).toBe(200);
    expect((await bodyOf(canceled)).status).toBe('canceled');
    expect((await api.call('/v1/evaluations', { method: 'POST', token: ADMIN_TOKEN })).status).toBe(403);
    const preflight = await api.call('/v1/evaluations', {
      method: 'OPTIONS',
      token: null,
      headers: { origin: 'https://example.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('allow')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('xsb serve: what a response may say', () => {
  it('answers a server fault 500 internal with the request id and no path, host, pid or OS error; the log has the detail', async () => {
    api = await startTestApi({ workers: 0 });
    const summary = join(api.dataDir, 'runs/broken/summary/summary.json');
    await mkdir(join(summary, '..'), { recursive: true });
    await writeFile(summary, '{"not": "a summary"');
    const answer = await api.call('/v1/runs/broken/summary');
    expect(answer.status).toBe(500);
    const body = await bodyOf(answer);
    expect(body.error.code).toBe('internal');
    expect(body.error.request_id).toBe(answer.headers.get('x-request-id'));
    const text = JSON.stringify(body);
    for (const secret of [api.dataDir, '/tmp', String(process.pid), 'summary.json', 'Unexpected', 'JSON'])
      expect(text).not.toContain(secret);
    const logged = logRecords(api).find((record) => record.req_id === body.error.request_id && record.err);
    expect(logged?.err).toContain('summary.json');
  });

  it('records a failed job without an absolute path or host, and names its worker opaquely', async () => {
    api = await startTestApi({ workers: 1 });
    // An empty replay store answers no prompt: the job fails on the worker, where the store has an absolute path.
    await mkdir(join(api.dataDir, 'replay'), { recursive: true });
    await writeFile(join(api.dataDir, 'replay/empty.jsonl'), '');
    const accepted = await post(api, { case: 'pilot', system: 'gen', judge: 'replay:empty.jsonl' });
    expect(accepted.status).toBe(202);
    const job = await waitForJob(api, (await bodyOf(accepted)).job_id);
    expect(job.status).toBe('failed');
    expect(job.error?.message).toMatch(/replay|answer|prompt/i);
    const text = JSON.stringify(job);
    expect(text).not.toContain(api.dataDir);
    expect(text).not.toMatch(/"\/(tmp|work|root|home)\//);
    expect(job.executions[0]!.worker).toMatch(/^worker-[0-9a-f]{8}$/);
  });
});
