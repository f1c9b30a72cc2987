import { z } from '@hono/zod-openapi';
import type { StageEvent } from '@xsb/core';
import { cancelJob, type StoredJob } from '@xsb/jobs';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { ApiHttpError, invalidField, notFound } from '../api-error';
import {
  EvaluationResultSchema,
  errorResponses,
  JOB_ID_PATTERN,
  JobIdParam,
  JobListQuery,
  JobListSchema,
  JobSchema,
  jsonResponse as json,
  RubricResultSchema,
  v1Route,
  withLinks,
} from '../api-schemas';
import type { ApiApp, ApiAppOptions, ApiEnv } from '../create-api-app';

/** A token sees and cancels the jobs it submitted; an `admin` token (or an insecure local server) all. */
export function ownsJob(principal: ApiEnv['Variables']['principal'], job: StoredJob): boolean {
  return principal.admin || job.submitted_by === principal.name;
}

const TERMINAL: ReadonlyArray<StoredJob['status']> = ['done', 'failed', 'canceled'];

// The store hands out the same frozen job object until the job changes: a status poll serializes each state once.
const jobBodies = new WeakMap<StoredJob, string>();
function jobBody(job: StoredJob): string {
  let body = jobBodies.get(job);
  if (body === undefined) {
    body = JSON.stringify(withLinks(job));
    if (Object.isFrozen(job)) jobBodies.set(job, body);
  }
  return body;
}

export function registerJobRoutes(app: ApiApp, options: ApiAppOptions): void {
  const { store } = options;
  // A job another token submitted is answered as missing: its existence is not the caller's to learn.
  const mustGet: MustGetJob = async (c, id) => {
    const job = await store.get(id);
    if (!job || !ownsJob(c.get('principal'), job)) throw notFound(`no job ${id}`);
    return job;
  };
  registerListJobs(app, options);
  registerGetJob(app, mustGet);
  registerJobResult(app, options, mustGet);
  registerJobEvents(app, options, mustGet);
  registerCancelJob(app, options, mustGet);
}

type MustGetJob = (c: Context<ApiEnv>, id: string) => Promise<StoredJob>;

function registerListJobs(app: ApiApp, { store }: ApiAppOptions): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/jobs',
      summary: 'List jobs, newest first',
      operationId: 'listJobs',
      request: { query: JobListQuery },
      responses: { 200: json(JobListSchema, 'a page of jobs'), ...errorResponses(400, 401, 403, 429, 503) },
    }),
    async (c) => {
      const { status, limit, cursor } = c.req.valid('query');
      if (cursor && !/^s\d{1,15}$/.test(Buffer.from(cursor, 'base64url').toString('utf8')))
        throw invalidField('field "cursor": is not a cursor of this API');
      const principal = c.get('principal');
      const page = await store.list({
        ...(status ? { status } : {}),
        limit,
        ...(cursor ? { cursor } : {}),
        ...(principal.admin ? {} : { submittedBy: principal.name ?? '' }),
      });
      return c.json({ jobs: page.jobs.map(withLinks), next_cursor: page.nextCursor }, 200);
    },
  );
}

function registerGetJob(app: ApiApp, mustGet: MustGetJob): void {
  // The status poll is the hot path: a plain handler checks the id with the schema's pattern, no async zod parse.
  app.openAPIRegistry.registerPath(
    v1Route({
      method: 'get',
      path: '/v1/jobs/{id}',
      summary: 'A job: status, progress, error, attempts and links',
      operationId: 'getJob',
      request: { params: JobIdParam },
      responses: { 200: json(JobSchema, 'the job'), ...errorResponses(400, 401, 403, 404, 429, 503) },
    }),
  );
  app.get('/v1/jobs/:id', async (c) => {
    const id = c.req.param('id');
    if (!JOB_ID_PATTERN.test(id)) throw invalidField('field "id": is not a job id');
    return c.body(jobBody(await mustGet(c, id)), 200, { 'Content-Type': 'application/json' });
  });
}

function registerJobResult(app: ApiApp, { store }: ApiAppOptions, mustGet: MustGetJob): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/jobs/{id}/result',
      summary: "A done job's result: metrics.json per audience, or the rubric scores",
      operationId: 'getJobResult',
      request: { params: JobIdParam },
      responses: {
        200: json(z.union([EvaluationResultSchema, RubricResultSchema]), 'the result'),
        ...errorResponses(400, 401, 403, 404, 409, 429, 503),
      },
    }),
    async (c) => {
      const job = await mustGet(c, c.req.valid('param').id);
      if (job.status !== 'done')
        throw new ApiHttpError(
          409,
          'job_not_done',
          job.status === 'failed'
            ? `job ${job.id} failed: ${job.error?.message ?? 'no reason recorded'}`
            : `job ${job.id} is ${job.status}; its result exists once it is done`,
        );
      return c.json((await store.result(job.id)) as z.infer<typeof EvaluationResultSchema>, 200);
    },
  );
}

function registerJobEvents(app: ApiApp, options: ApiAppOptions, mustGet: MustGetJob): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/jobs/{id}/events',
      summary: 'Server-sent events: a `job` event with the job at every change, then `end`',
      operationId: 'streamJobEvents',
      request: { params: JobIdParam },
      responses: {
        200: json(z.string(), 'an event stream', 'text/event-stream'),
        ...errorResponses(400, 401, 403, 404, 429, 503),
      },
    }),
    async (c) => {
      const first = await mustGet(c, c.req.valid('param').id);
      return streamSSE(c, (stream) => relayJob(stream, first, options));
    },
  );
}

/** A `job` event at every change (polled), a `stage` event per stage event published here, then `end`. */
async function relayJob(stream: SSEStreamingApi, first: StoredJob, options: ApiAppOptions): Promise<void> {
  const interval = options.eventsIntervalMs ?? 250;
  let aborted = false;
  const pending: StageEvent[] = [];
  const unsubscribe = options.events?.subscribe(first.id, (event) => pending.push(event));
  stream.onAbort(() => {
    aborted = true;
  });
  let last = '';
  let sequence = 0;
  const write = (event: string, data: unknown) =>
    stream.writeSSE({ event, id: String(++sequence), data: JSON.stringify(data) });
  try {
    let job: StoredJob | undefined = first;
    while (!aborted && job) {
      for (const event of pending.splice(0)) await write('stage', event);
      const snapshot = JSON.stringify([job.status, job.progress, job.attempts, job.error]);
      if (snapshot !== last) {
        last = snapshot;
        await write('job', withLinks(job));
      }
      if (TERMINAL.includes(job.status)) {
        await write('end', { status: job.status });
        break;
      }
      await stream.sleep(interval);
      job = await options.store.get(first.id);
    }
  } finally {
    unsubscribe?.();
  }
}

function registerCancelJob(app: ApiApp, options: ApiAppOptions, mustGet: MustGetJob): void {
  app.openapi(
    v1Route({
      method: 'delete',
      path: '/v1/jobs/{id}',
      summary: 'Cancel a job (at once when queued; a running job stops at its next step)',
      operationId: 'cancelJob',
      request: { params: JobIdParam },
      responses: {
        200: json(JobSchema, 'canceled, or already finished (unchanged)'),
        202: json(JobSchema, 'running: asked to stop; it becomes canceled when its worker stops'),
        ...errorResponses(400, 401, 403, 404, 429, 503),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await mustGet(c, id);
      const canceled = await cancelJob(options.store, options.dataDir, id);
      if (!canceled) throw notFound(`no job ${id}`);
      return c.json(withLinks(canceled.job), canceled.outcome === 'cancel_requested' ? 202 : 200);
    },
  );
}
