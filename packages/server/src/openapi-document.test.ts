import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { apiErrorSchema, apiJobListSchema, apiJobSchema, apiRunListSchema } from '@xsb/jobs';
import { fixtureDeck } from '@xsb/jobs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  ADMIN_TOKEN,
  bodyOf,
  deckForm,
  EVALUATE_TOKEN,
  POSTER_TOKEN,
  READ_TOKEN,
  startTestApi,
  type TestApi,
  waitForJob,
} from './testing-api';

interface DocumentedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>>;
}

/** Headers of ours a response may carry; each must be declared on the documented response. */
const OWN_HEADERS = ['x-request-id', 'retry-after', 'www-authenticate', 'location'];
/** Bodies checked against the format's zod schema (the one the document was generated from). */
const SCHEMAS: Record<string, z.ZodType> = {
  Error: apiErrorSchema,
  Job: apiJobSchema,
  JobList: apiJobListSchema,
  RunList: apiRunListSchema,
};

let api: TestApi;
let document: OpenApiDocument;
beforeAll(async () => {
  api = await startTestApi({ workers: 1, authFailuresPerMinute: 3, rateLimitPerMinute: 1000 });
  document = (await (await api.call('/openapi.json', { token: null })).json()) as OpenApiDocument;
});
afterAll(async () => {
  await api?.stop();
});

/** The documented operation of a request path (templates like `/v1/jobs/{id}` matched by segment). */
function operationOf(method: string, path: string) {
  const segments = path.split('?')[0]!.split('/');
  for (const [template, operations] of Object.entries(document.paths)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    if (parts.every((part, i) => part.startsWith('{') || part === segments[i]))
      return operations[method.toLowerCase()];
  }
  return undefined;
}

describe('the OpenAPI document', () => {
  it('passes redocly lint with the recommended rules: no error, no warning', async () => {
    const file = join(api.dir, 'openapi.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(document));
    const cli = join(
      dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
      'bin/cli.js',
    );
    // Not spawnSync: blocking the event loop for the lint's seconds let the server's keep-alive timer
    // close the client's idle connection unseen, and the next request met ECONNRESET.
    const lint = await promisify(execFile)(
      process.execPath,
      [cli, 'lint', '--extends', 'recommended', '--format', 'json', file],
      { encoding: 'utf8' },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number };
      problems: unknown[];
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('documents every status, header and body of 20+ real responses', async () => {
    const post = (
      fields: Record<string, string | string[]>,
      token: string | null = EVALUATE_TOKEN,
      deck = fixtureDeck('doc'),
    ) => ({ method: 'POST', body: deckForm(deck, fields), token }) as const;
    const accepted = await api.call('/v1/evaluations', post({ case: 'pilot', system: 'gen-doc' }));
    const jobId = (await bodyOf(accepted.clone())).job_id as string;
    await waitForJob(api, jobId);
    // A job that fails (an empty replay store answers nothing): its result is a 409.
    await mkdir(join(api.dataDir, 'replay'), { recursive: true });
    await writeFile(join(api.dataDir, 'replay/empty.jsonl'), '');
    const failing = await api.call(
      '/v1/evaluations',
      post({ case: 'pilot', system: 'gen-fail', judge: 'replay:empty.jsonl' }),
    );
    const failedId = (await bodyOf(failing)).job_id as string;
    expect((await waitForJob(api, failedId)).status).toBe('failed');
    const requests: Array<[string, string, (RequestInit & { token?: string | null }) | undefined]> = [
      ['GET', '/healthz', { token: null }],
      ['GET', '/readyz', { token: null }],
      ['GET', '/v1/jobs', undefined],
      ['GET', '/v1/jobs?status=done&limit=5', { token: ADMIN_TOKEN }],
      ['GET', '/v1/jobs?status=nope', undefined],
      ['GET', `/v1/jobs/${jobId}`, undefined],
      ['GET', `/v1/jobs/${jobId}`, { token: POSTER_TOKEN }],
      ['GET', '/v1/jobs/bad_id!', undefined],
      ['GET', `/v1/jobs/${jobId}/result`, undefined],
      ['GET', `/v1/jobs/${failedId}/result`, undefined],
      ['GET', `/v1/jobs/${jobId}/events`, undefined],
      ['DELETE', `/v1/jobs/${jobId}`, undefined],
      ['GET', '/v1/runs', { token: READ_TOKEN }],
      ['GET', '/v1/runs/api/summary', undefined],
      ['GET', '/v1/runs/nope/report', undefined],
      ['POST', '/v1/evaluations', post({ case: 'pilot', system: 'gen-doc' })],
      ['POST', '/v1/evaluations', post({ case: 'nope', system: 'gen' })],
      ['POST', '/v1/evaluations', post({ case: 'pilot', system: 'gen' }, READ_TOKEN)],
      [
        'POST',
        '/v1/evaluations',
        post({ case: 'pilot', system: 'gen2' }, EVALUATE_TOKEN, Buffer.from('not a deck')),
      ],
      ['POST', '/v1/evaluations', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }],
      ['POST', '/v1/rubric/evaluations', post({ instance: 'nope', system: 'gen' })],
      ['GET', '/v1/jobs', { token: null }],
      ['GET', '/v1/jobs', { token: 'wrong-token-1' }],
      ['GET', '/v1/jobs', { token: 'wrong-token-2' }],
      ['GET', '/v1/jobs', { token: 'wrong-token-3' }],
    ];
    const seen = new Set<number>();
    const responses = [
      accepted,
      ...(await Promise.all(requests.map(([, path, init]) => api.call(path, init)))),
    ];
    const methods = ['POST', ...requests.map(([method]) => method)];
    const paths = ['/v1/evaluations', ...requests.map(([, path]) => path)];
    expect(responses.length).toBeGreaterThanOrEqual(20);
    for (const [index, response] of responses.entries()) {
      const where = `${methods[index]} ${paths[index]} → ${response.status}`;
      const operation = operationOf(methods[index]!, paths[index]!);
      expect(operation, where).toBeDefined();
      const documented = operation!.responses[String(response.status)];
      expect(documented, where).toBeDefined();
      seen.add(response.status);
      const declared = Object.keys(documented!.headers ?? {}).map((name) => name.toLowerCase());
      for (const header of OWN_HEADERS)
        if (response.headers.has(header)) expect(declared, `${where}: header ${header}`).toContain(header);
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
      const content = documented!.content ?? {};
      expect(Object.keys(content), where).toContain(type);
      const ref = content[type]?.schema?.$ref?.split('/').at(-1);
      const schema = ref ? SCHEMAS[ref] : undefined;
      if (schema) {
        const parsed = schema.safeParse(await response.json());
        expect(parsed.success, `${where}: body as ${ref}: ${parsed.error?.message}`).toBe(true);
      } else await response.arrayBuffer();
    }
    for (const status of [200, 202, 400, 401, 403, 404, 409, 415, 429])
      expect(seen, String(status)).toContain(status);
  }, 60_000);
});
