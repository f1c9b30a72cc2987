import { join } from 'node:path';
import { ConfigError } from '@xsb/core';
import { apiEvaluationResultSchema, apiJobSchema, apiRunListSchema } from '@xsb/jobs';
import { fixtureDeck } from '@xsb/jobs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTokenList } from './api-tokens';
import { createApiApp } from './create-api-app';
import { checkServerSecurity, startApiServer } from './start-api-server';
import {
  bodyOf,
  deckForm,
  EVALUATE_TOKEN,
  leftovers,
  READ_TOKEN,
  startTestApi,
  TEST_TOKENS,
  type TestApi,
  waitForJob,
} from './testing-api';

let api: TestApi | undefined;
afterEach(async () => {
  await api?.stop();
  api = undefined;
});

const post = (
  target: TestApi,
  fields: Record<string, string | string[]>,
  deck = fixtureDeck('v1'),
  token?: string,
) =>
  target.call('/v1/evaluations', {
    method: 'POST',
    body: deckForm(deck, fields),
    ...(token ? { token } : {}),
  });

describe('xsb serve: safe by default', () => {
  it('refuses to start without a token unless --insecure-local on a loopback host', async () => {
    expect(() => checkServerSecurity({ tokens: [], host: '127.0.0.1' })).toThrow(ConfigError);
    expect(() => checkServerSecurity({ tokens: [], host: '0.0.0.0', insecureLocal: true })).toThrow(
      /only on a loopback host/,
    );
    expect(() => checkServerSecurity({ tokens: [], host: '::1', insecureLocal: true })).not.toThrow();
    await expect(startApiServer({ dataDir: '/nonexistent', tokens: [], env: {}, port: 0 })).rejects.toThrow(
      /no API token is configured/,
    );
  });

  it('parses XSB_API_TOKENS and refuses weak or malformed entries without echoing the token', () => {
    const [ci, dash] = parseTokenList(`ci:${EVALUATE_TOKEN}:evaluate+read,dash:${READ_TOKEN}:read`);
    expect(ci?.name).toBe('ci');
    expect([...(ci?.scopes ?? [])]).toEqual(['evaluate', 'read']);
    expect([...(dash?.scopes ?? [])]).toEqual(['read']);
    for (const bad of [
      'ci:short:read',
      'ci:0123456789abcdef0:write',
      'ci0123456789abcdef0read',
      'c/i:0123456789abcdef0:read',
    ]) {
      expect(() => parseTokenList(bad)).toThrow(ConfigError);
      try {
        parseTokenList(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain('0123456789abcdef0');
      }
    }
  });

  it('names the entry and the rule, never a field, when XSB_API_TOKENS has its fields swapped', () => {
    const secret = 'Zq8v-secret-Yh3k_77aa';
    const swapped = [
      `ci:${EVALUATE_TOKEN}:read,${secret}:ci:evaluate`, // token where the name goes (portable), short "token"
      `ci:${EVALUATE_TOKEN}:read,evaluate:${secret}/x:ci`, // scopes where the token goes
      `ci:${EVALUATE_TOKEN}:read,ci2:read:${secret}`, // token where the scopes go
      `ci:${EVALUATE_TOKEN}:read,${secret}/:read:x`, // a non-portable "name"
    ];
    for (const text of swapped) {
      let message = '';
      try {
        parseTokenList(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^XSB_API_TOKENS entry 2: the (first|second|third) field/);
      expect(message).not.toContain(secret);
      expect(message).not.toContain(secret.slice(0, 6));
      expect(message).not.toContain(EVALUATE_TOKEN.slice(0, 8));
    }
  });

  it('answers 401 without or with a wrong token, 403 without the scope, and lets health and docs through', async () => {
    api = await startTestApi({ workers: 0 });
    const none = await api.call('/v1/jobs', { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await bodyOf(none)).toEqual({
      error: {
        code: 'unauthorized',
        message: 'send a bearer token: Authorization: Bearer <token>',
        request_id: none.headers.get('x-request-id'),
      },
    });
    expect((await api.call('/v1/jobs', { token: `${EVALUATE_TOKEN}x` })).status).toBe(401);
    expect((await api.call('/v1/jobs', { token: READ_TOKEN })).status).toBe(200);
    const forbidden = await post(api, { case: 'pilot', system: 'gen' }, fixtureDeck('v1'), READ_TOKEN);
    expect(forbidden.status).toBe(403);
    expect((await bodyOf(forbidden)).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('"evaluate"'),
    });
    expect((await api.call('/healthz', { token: null })).status).toBe(200);
    const ready = await api.call('/readyz', { token: null });
    expect(await bodyOf(ready)).toEqual({ status: 'ready', store: 'sqlite' });
    const document = await bodyOf(await api.call('/openapi.json', { token: null }));
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/evaluations',
        '/v1/rubric/evaluations',
        '/v1/jobs',
        '/v1/jobs/{id}',
        '/v1/jobs/{id}/result',
        '/v1/jobs/{id}/events',
        '/v1/runs',
        '/v1/runs/{run}/summary',
        '/v1/runs/{run}/report',
        '/healthz',
        '/readyz',
      ]),
    );
    expect(document.paths['/v1/jobs/{id}'].get).toMatchObject({
      parameters: [{ name: 'id', in: 'path' }],
      responses: {
        200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Job' } } } },
      },
    });
    expect(document.components.schemas.Job.properties.status.enum).toEqual([
      'queued',
      'running',
      'done',
      'failed',
      'canceled',
    ]);
    expect(document.paths['/v1/evaluations'].post.requestBody.content['multipart/form-data']).toBeDefined();
    const docs = await api.call('/docs', { token: null });
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
    const page = await docs.text();
    expect(page).toContain('/v1/evaluations');
    expect(page).not.toMatch(/<script/i);
  });

  it('limits requests per token per minute with 429 and Retry-After', async () => {
    api = await startTestApi({ workers: 0, rateLimitPerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await api.call('/v1/jobs')).status).toBe(200);
    const limited = await api.call('/v1/jobs');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await bodyOf(limited)).error.code).toBe('rate_limited');
    expect((await api.call('/v1/jobs', { token: READ_TOKEN })).status).toBe(200);
  });
});

describe('xsb serve: evaluations over HTTP', () => {
  it('accepts a deck (202), runs it as xsb eval would, streams progress and returns metrics.json per audience', async () => {
    api = await startTestApi();
    const response = await post(api, { case: 'pilot', system: 'gen' });
    expect(response.status).toBe(202);
    const accepted = await bodyOf(response);
    expect(response.headers.get('location')).toBe(`/v1/jobs/${accepted.job_id}`);
    expect(apiJobSchema.parse(accepted.job)).toMatchObject({ status: 'queued', submitted_by: 'ci' });

    const events = await api.call(`/v1/jobs/${accepted.job_id}/events`);
    expect(events.headers.get('content-type')).toMatch(/text\/event-stream/);
    const stream = await events.text();
    expect(stream).toMatch(/event: end\ndata: {"status":"done"}/);
    const states = [...stream.matchAll(/event: job\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1]!).status);
    expect(states.at(-1)).toBe('done');

    const job = await waitForJob(api, accepted.job_id);
    expect(job).toMatchObject({
      status: 'done',
      attempts: 1,
      progress: { phase: 'done', done: 2, total: 2 },
    });
    const result = apiEvaluationResultSchema.parse(await bodyOf(await api.call(`/v1/jobs/${job.id}/result`)));
    expect(result.evaluations.map((e) => [e.audience, e.outcome, e.metrics?.audience])).toEqual([
      ['learners', 'evaluated', 'learners'],
      ['decision_makers', 'evaluated', 'decision_makers'],
    ]);
    expect(result.judge_kind).toBe('offline');

    const listed = await bodyOf(await api.call('/v1/jobs?status=done&limit=5'));
    expect(listed.jobs.map((j: { id: string }) => j.id)).toEqual([job.id]);
    const runs = apiRunListSchema.parse(await bodyOf(await api.call('/v1/runs')));
    expect(runs.runs).toEqual([
      expect.objectContaining({ run: 'api', has_summary: false, has_report: false }),
    ]);
    expect((await api.call('/v1/runs/api/summary')).status).toBe(404);
    expect((await api.call('/v1/runs/nope/report')).status).toBe(404);
    expect((await api.call('/v1/runs/a..b/summary')).status).toBe(400);
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
  });

  it('returns the job already queued for the same deck with 409, and cancels a queued job', async () => {
    api = await startTestApi({ workers: 0 });
    const first = await bodyOf(
      await post(api, { case: 'pilot', system: 'gen', audiences: 'learners,decision_makers' }),
    );
    const again = await post(api, {
      case: 'pilot',
      system: 'gen',
      audiences: ['decision_makers', 'learners'],
    });
    expect(again.status).toBe(409);
    const conflict = await bodyOf(again);
    expect(conflict).toMatchObject({
      error: { code: 'duplicate_job', job_id: first.job_id },
      job: { id: first.job_id },
    });
    const otherJudgeOrRun = await post(api, { case: 'pilot', system: 'gen', run: 'other' });
    expect(otherJudgeOrRun.status).toBe(202);
    expect((await api.call(`/v1/jobs/${first.job_id}/result`)).status).toBe(409);
    // A status read twice is the same JSON; once the job changes, it is the new state.
    const queued = await api.call(`/v1/jobs/${first.job_id}`);
    expect(queued.headers.get('content-type')).toBe('application/json');
    const queuedText = await queued.text();
    expect(apiJobSchema.parse(JSON.parse(queuedText))).toMatchObject({ status: 'queued' });
    expect(await (await api.call(`/v1/jobs/${first.job_id}`)).text()).toBe(queuedText);

    const canceled = await api.call(`/v1/jobs/${first.job_id}`, { method: 'DELETE' });
    expect(canceled.status).toBe(200);
    expect((await bodyOf(canceled)).status).toBe('canceled');
    const afterCancel = JSON.parse(await (await api.call(`/v1/jobs/${first.job_id}`)).text());
    expect(afterCancel).toMatchObject({ status: 'canceled', links: { self: `/v1/jobs/${first.job_id}` } });
    expect((await api.call(`/v1/jobs/${first.job_id}`, { method: 'DELETE', token: READ_TOKEN })).status).toBe(
      403,
    );
    expect((await api.call('/v1/jobs/no-such-job')).status).toBe(404);
    const badId = await api.call('/v1/jobs/not_a_job_id');
    expect(badId.status).toBe(400);
    expect((await bodyOf(badId)).error).toEqual({
      code: 'invalid_field',
      message: 'field "id": is not a job id',
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect((await api.call('/v1/jobs?status=nope')).status).toBe(400);
    expect((await api.call('/v1/jobs?cursor=zzz')).status).toBe(400);
    expect((await leftovers(api.dataDir)).uploads).toHaveLength(1);
  });

  it('answers bad fields with 400 naming them, a non-deck with 415, and leaves nothing behind', async () => {
    api = await startTestApi({ workers: 0 });
    const unknownCase = await post(api, { case: 'nope', system: 'gen' });
    expect(unknownCase.status).toBe(400);
    expect((await bodyOf(unknownCase)).error).toEqual({
      code: 'unknown_case',
      message: 'field "case": unknown case "nope" (known: pilot)',
      request_id: unknownCase.headers.get('x-request-id'),
    });
    const audience = await post(api, { case: 'pilot', system: 'gen', audiences: 'pilots' });
    expect((await bodyOf(audience)).error).toMatchObject({
      code: 'unknown_audience',
      message: expect.stringContaining('"pilots"'),
    });
    const traversal = await post(api, { case: 'pilot', system: '../../etc' });
    expect(traversal.status).toBe(400);
    expect((await bodyOf(traversal)).error.message).toContain('field "system"');
    const typo = await post(api, { case: 'pilot', system: 'gen', audience: 'learners' });
    expect((await bodyOf(typo)).error.message).toContain('field "audience": not a field');
    const text = await post(api, { case: 'pilot', system: 'gen' }, Buffer.from('just text, named .pptx'));
    expect(text.status).toBe(415);
    expect((await bodyOf(text)).error.code).toBe('unsupported_media_type');
    const json = await api.call('/v1/evaluations', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(json.status).toBe(415);
    const noDeck = new FormData();
    noDeck.append('case', 'pilot');
    expect(
      (await bodyOf(await api.call('/v1/evaluations', { method: 'POST', body: noDeck }))).error.message,
    ).toBe('field "deck": is required');
    expect(await leftovers(api.dataDir)).toEqual({ tmp: [], uploads: [] });
    expect((await bodyOf(await api.call('/v1/jobs'))).jobs).toEqual([]);
  });

  it('refuses new work with 503 while draining, and reports not ready', async () => {
    api = await startTestApi({ workers: 0 });
    const app = createApiApp({
      dataDir: api.dataDir,
      store: api.server.store,
      tokens: parseTokenList(TEST_TOKENS),
      env: {},
      tmpDir: join(api.dir, 'tmp'),
      isDraining: () => true,
    });
    const headers = { authorization: `Bearer ${EVALUATE_TOKEN}` };
    const refused = await app.request('/v1/evaluations', {
      method: 'POST',
      headers,
      body: deckForm(fixtureDeck('v1'), { case: 'pilot', system: 'gen' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await bodyOf(refused)).error.code).toBe('draining');
    expect((await app.request('/readyz')).status).toBe(503);
    expect((await app.request('/v1/jobs', { headers })).status).toBe(200);
  });
});
