import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { describeError } from '@xsb/core';
import { ErrorSchema } from '../api-schemas';
import type { ApiApp, ApiAppOptions } from '../create-api-app';

const HealthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
const ReadySchema = z
  .object({ status: z.literal('ready'), store: z.enum(['sqlite', 'redis']) })
  .meta({ id: 'Ready' });

/**
 * `/healthz`: the process answers. `/readyz`: the job store answers a query and the data folder takes
 * a write (a temp file written and removed); 503 while draining or when either fails.
 */
export function registerHealthRoutes(app: ApiApp, options: ApiAppOptions): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/healthz',
      summary: 'The process is up',
      responses: { 200: { description: 'up', content: { 'application/json': { schema: HealthSchema } } } },
    }),
    (c) => c.json({ status: 'ok' as const }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/readyz',
      summary: 'The database and the data folder are usable',
      responses: {
        200: { description: 'ready', content: { 'application/json': { schema: ReadySchema } } },
        503: {
          description: 'not ready (draining, store or data folder unusable)',
          content: { 'application/json': { schema: ErrorSchema } },
        },
      },
    }),
    async (c) => {
      const notReady = (message: string) => c.json({ error: { code: 'not_ready', message } }, 503);
      if (options.isDraining?.()) return notReady('the server is draining for shutdown');
      try {
        await options.store.check();
      } catch (error) {
        return notReady(`the job store does not answer: ${describeError(error)}`);
      }
      try {
        await mkdir(options.tmpDir, { recursive: true });
        const probe = join(options.tmpDir, `.ready-${randomUUID()}`);
        await writeFile(probe, 'ok');
        await rm(probe, { force: true });
      } catch (error) {
        return notReady(`the data folder is not writable: ${describeError(error)}`);
      }
      return c.json({ status: 'ready' as const, store: options.store.backend }, 200);
    },
  );
}
