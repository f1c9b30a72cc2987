import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from '@hono/zod-openapi';
import { compareCodePoints, metricsSummarySchema, portableNameSchema, RunLayout, readJson } from '@xsb/core';
import { notFound, ServerFault } from '../api-error';
import {
  jsonResponse as answer,
  errorResponses,
  RunListSchema,
  RunParam,
  RunSummarySchema,
  v1Route,
} from '../api-schemas';
import type { ApiApp, ApiAppOptions } from '../create-api-app';

/** Runs under `<data>/runs/`: the list, a run's stage-7 summary, its HTML report where one was built. */
export function registerRunRoutes(app: ApiApp, options: ApiAppOptions): void {
  const files = new RunFiles(options.dataDir);
  registerListRuns(app, files);
  registerRunSummary(app, files);
  registerRunReport(app, files);
}

class RunFiles {
  readonly layout: RunLayout;
  constructor(readonly dataDir: string) {
    this.layout = new RunLayout(dataDir);
  }
  summary(run: string): string {
    return join(this.layout.summaryDir(run), 'summary.json');
  }
  report(run: string): string {
    return join(this.layout.summaryDir(run), 'report.html');
  }
  mustExist(run: string): void {
    if (!existsSync(this.layout.runDir(run))) throw notFound(`no run "${run}"`);
  }
  async names(): Promise<string[]> {
    const root = join(this.dataDir, 'runs');
    if (!existsSync(root)) return [];
    return (await readdir(root, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && portableNameSchema.safeParse(entry.name).success)
      .map((entry) => entry.name)
      .sort(compareCodePoints);
  }
}

function registerListRuns(app: ApiApp, files: RunFiles): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/runs',
      summary: 'The runs of the data folder',
      operationId: 'listRuns',
      responses: {
        200: answer(RunListSchema, 'the runs'),
        ...errorResponses(401, 403, 429),
      },
    }),
    async (c) => {
      const runs = (await files.names()).map((run) => ({
        run,
        has_summary: existsSync(files.summary(run)),
        has_report: existsSync(files.report(run)),
        links: { summary: `/v1/runs/${run}/summary`, report: `/v1/runs/${run}/report` },
      }));
      return c.json({ runs }, 200);
    },
  );
}

function registerRunSummary(app: ApiApp, files: RunFiles): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/runs/{run}/summary',
      summary: "A run's stage-7 summary (summary.json of xsb aggregate)",
      operationId: 'getRunSummary',
      request: { params: RunParam },
      responses: {
        200: answer(RunSummarySchema, 'the summary'),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      const { run } = c.req.valid('param');
      files.mustExist(run);
      const file = files.summary(run);
      if (!existsSync(file)) throw notFound(`run "${run}" has no summary yet (aggregate it first)`);
      // The summary is the server's own file: a corrupt one is the server's fault, not the client's.
      const summary = await readJson(file, metricsSummarySchema).catch((error: unknown) => {
        throw new ServerFault(error);
      });
      return c.json(summary, 200);
    },
  );
}

function registerRunReport(app: ApiApp, files: RunFiles): void {
  app.openapi(
    v1Route({
      method: 'get',
      path: '/v1/runs/{run}/report',
      summary: "A run's HTML report, where one was built (runs/<run>/summary/report.html)",
      operationId: 'getRunReport',
      request: { params: RunParam },
      responses: {
        200: answer(z.string(), 'the report', 'text/html'),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      const { run } = c.req.valid('param');
      files.mustExist(run);
      const file = files.report(run);
      if (!existsSync(file)) throw notFound(`run "${run}" has no HTML report`);
      c.header('X-Content-Type-Options', 'nosniff');
      const html = await readFile(file, 'utf8').catch((error: unknown) => {
        throw new ServerFault(error);
      });
      return c.html(html, 200);
    },
  );
}
