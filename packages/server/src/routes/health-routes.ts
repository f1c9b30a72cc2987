import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { describeError } from '@xsb/core';
import {
  ErrorSchema,
  jsonResponse,
  nodeResponses,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
} from '../api-schemas';
import type { ApiApp, ApiAppOptions } from '../create-api-app';

const HealthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
const ReadySchema = z
  .object({ status: z.literal('ready'), store: z.enum(['sqlite', 'redis']) })
  .meta({ id: 'Ready' });

/** `/healthz`: the process answers. `/readyz`: the job store answers and the data folder takes a write. */
export function registerHealthRoutes(app: ApiApp, options: ApiAppOptions): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      summary: 'The process is up',
      operationId: 'getHealth',
      security: [],
      responses: {
        200: jsonResponse(HealthSchema, 'up'),
        ...nodeResponses(),
      },
    }),
    (c) => c.json({ status: 'ok' as const }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/readyz',
      summary: 'The database and the data folder are usable',
      operationId: 'getReadiness',
      security: [],
      responses: {
        200: jsonResponse(ReadySchema, 'ready'),
        503: {
          description: 'not ready (draining, store or data folder unusable)',
          headers: { ...REQUEST_ID_HEADER, ...RETRY_AFTER_HEADER },
          content: { 'application/json': { schema: ErrorSchema } },
        },
        ...nodeResponses(),
      },
    }),
    async (c) => {
      const notReady = (message: string, fault?: unknown) => {
        if (fault !== undefined)
          options.logger?.warn({ req_id: c.get('requestId'), err: describeError(fault) }, message);
        c.header('Retry-After', '5');
        return c.json({ error: { code: 'not_ready', message, request_id: c.get('requestId') } }, 503);
      };
      if (options.isDraining?.()) return notReady('the server is draining for shutdown');
      try {
        await withDeadline(options.store.check(), READY_DEADLINE_MS, 'the job store did not answer in time');
      } catch (error) {
        return notReady('the job store does not answer', error);
      }
      try {
        await probeWritable(options.tmpDir);
      } catch (error) {
        return notReady('the data folder cannot be written', error);
      }
      return c.json({ status: 'ready' as const, store: options.store.backend }, 200);
    },
  );
}

// A lost Redis must not hang the probe.
const READY_DEADLINE_MS = 1500;

async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// The probe file is removed whatever happened: a full disk creates it empty, then fails the write.
async function probeWritable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const probe = join(dir, `.ready-${randomUUID()}`);
  try {
    await writeFile(probe, 'ready\n');
  } finally {
    await rm(probe, { force: true });
  }
}
