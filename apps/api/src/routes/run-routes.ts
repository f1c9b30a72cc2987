import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { compareCodePoints, metricsSummarySchema, portableNameSchema, RunLayout, readJson } from '@xsb/core';
import { ApiHttpError, ServerFault } from '../api-error';
import { errorResponses, REQUEST_ID_HEADER, RunListSchema, RunParam, RunSummarySchema } from '../api-schemas';
import type { ApiApp, ApiAppOptions } from '../create-api-app';

/** Where an HTML report of a run is looked for: the summary folder of stage 7. */
export const REPORT_FILE = 'report.html';

/** Runs under `<data>/runs/`: the list, a run's stage-7 summary, its HTML report where one was built. */
export function registerRunRoutes(app: ApiApp, options: ApiAppOptions): void {
  const layout = new RunLayout(options.dataDir);
  const summaryFile = (run: string) => join(layout.summaryDir(run), 'summary.json');
  const reportFile = (run: string) => join(layout.summaryDir(run), REPORT_FILE);
  const mustExist = (run: string) => {
    if (!existsSync(layout.runDir(run))) throw new ApiHttpError(404, 'not_found', `no run "${run}"`);
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs',
      summary: 'The runs of the data folder',
      operationId: 'listRuns',
      security: [{ bearer: [] }],
      responses: {
        200: {
          description: 'the runs',
          headers: REQUEST_ID_HEADER,
          content: { 'application/json': { schema: RunListSchema } },
        },
        ...errorResponses(401, 403, 429),
      },
    }),
    async (c) => {
      const root = join(options.dataDir, 'runs');
      const names = existsSync(root)
        ? (await readdir(root, { withFileTypes: true }))
            .filter((entry) => entry.isDirectory() && portableNameSchema.safeParse(entry.name).success)
            .map((entry) => entry.name)
            .sort(compareCodePoints)
        : [];
      return c.json(
        {
          runs: names.map((run) => ({
            run,
            has_summary: existsSync(summaryFile(run)),
            has_report: existsSync(reportFile(run)),
            links: { summary: `/v1/runs/${run}/summary`, report: `/v1/runs/${run}/report` },
          })),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs/{run}/summary',
      summary: "A run's stage-7 summary (summary.json of xsb aggregate)",
      operationId: 'getRunSummary',
      security: [{ bearer: [] }],
      request: { params: RunParam },
      responses: {
        200: {
          description: 'the summary',
          headers: REQUEST_ID_HEADER,
          content: { 'application/json': { schema: RunSummarySchema } },
        },
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      const { run } = c.req.valid('param');
      mustExist(run);
      const file = summaryFile(run);
      if (!existsSync(file))
        throw new ApiHttpError(
          404,
          'not_found',
          `run "${run}" has no summary yet (run xsb aggregate --run ${run})`,
        );
      // The summary is the server's own file: a corrupt one is the server's fault, not the client's.
      const summary = await readJson(file, metricsSummarySchema).catch((error: unknown) => {
        throw new ServerFault(error);
      });
      return c.json(summary, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/runs/{run}/report',
      summary: "A run's HTML report, where one was built (runs/<run>/summary/report.html)",
      operationId: 'getRunReport',
      security: [{ bearer: [] }],
      request: { params: RunParam },
      responses: {
        200: {
          description: 'the report',
          headers: REQUEST_ID_HEADER,
          content: { 'text/html': { schema: z.string() } },
        },
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      const { run } = c.req.valid('param');
      mustExist(run);
      const file = reportFile(run);
      if (!existsSync(file)) throw new ApiHttpError(404, 'not_found', `run "${run}" has no HTML report`);
      c.header('X-Content-Type-Options', 'nosniff');
      const html = await readFile(file, 'utf8').catch((error: unknown) => {
        throw new ServerFault(error);
      });
      return c.html(html, 200);
    },
  );
}
