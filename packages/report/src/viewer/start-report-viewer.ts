import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { assertSafePathPart, describeError, isXsbError, UsageError } from '@xsb/core';
import { buildBenchReport } from '../bench/build-bench-report';
import { escapeHtml } from '../html/escape-html';
import { REPORT_CSP, renderHtmlDocument } from '../html/html-document';
import { renderTable, text } from '../html/html-table';
import { section } from '../html/sections';
import type { ReportOptions } from '../report-options';
import { buildRubricReport } from '../rubric/build-rubric-report';
import { buildRunReport } from '../run/build-run-report';
import { entryDigest, listReports, type ReportEntry } from './list-reports';

export const DEFAULT_VIEWER_PORT = 7575;
const LOOPBACK = '127.0.0.1';

export interface ReportViewerOptions extends Omit<ReportOptions, 'out'> {
  dataDir: string;
  /** Default 7575; 0 picks a free port. */
  port?: number;
  /** Only `127.0.0.1` or `localhost`: the viewer serves local files. */
  host?: string;
  onBuild?: (entry: ReportEntry, ms: number) => void;
}

export interface ReportViewer {
  url: string;
  port: number;
  /** Reports built, not served from the cache, since start. */
  builds(): number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, html: string, head: boolean): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'content-security-policy': REPORT_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  response.end(head ? undefined : html);
}

function indexPage(dataDir: string, entries: readonly ReportEntry[]): string {
  const kinds = { run: 'pipeline run', bench: 'bench run', rubric: 'rubric results' };
  const table = renderTable({
    id: 'reports-table',
    rows: entries,
    filters: [{ key: 'kind', label: 'kind', value: (entry) => kinds[entry.kind] }],
    search: true,
    empty: 'No run, bench record or rubric result under this folder yet.',
    columns: [
      { label: 'kind', cell: (entry) => text(kinds[entry.kind]) },
      {
        label: 'name',
        cell: (entry) => ({
          html: `<a href="${escapeHtml(entry.href)}">${escapeHtml(entry.name)}</a>`,
          sort: entry.name,
        }),
      },
      {
        label: 'reads',
        cell: (entry) => text(entry.files.map((file) => file.slice(dataDir.length + 1)).join(', ')),
      },
    ],
  });
  return renderHtmlDocument({
    title: 'xsb reports',
    subtitle: dataDir,
    toc: [['reports', 'Reports']],
    body: section(
      'reports',
      `Reports (${entries.length})`,
      `<p class="note">Each report is built on first request and kept while its summary files are unchanged.</p>${table}`,
    ),
  });
}

/** Checked on the raw path, before any URL normalisation could fold `/run/..` into `/`. */
function pathParts(rawUrl: string): string[] {
  const raw = (rawUrl.split('?')[0] ?? '').split('/').slice(1);
  if (raw.at(-1) === '') raw.pop();
  try {
    return raw.map((part) => assertSafePathPart(decodeURIComponent(part), 'report path part'));
  } catch (error) {
    throw new HttpError(400, describeError(error));
  }
}

function entryFor(parts: readonly string[], entries: readonly ReportEntry[]): ReportEntry {
  const [kind, ...rest] = parts;
  const name = rest.join('/');
  const entry = entries.find((candidate) => candidate.kind === kind && candidate.name === name);
  if (!entry) throw new HttpError(404, `no report at /${parts.join('/')}`);
  return entry;
}

export function viewerPort(options: Pick<ReportViewerOptions, 'host' | 'port'>): number {
  const host = options.host ?? LOOPBACK;
  if (host !== LOOPBACK && host !== 'localhost')
    throw new UsageError(
      `the report viewer listens on 127.0.0.1 only (got host ${host}): it serves local files`,
    );
  const port = options.port ?? DEFAULT_VIEWER_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`port must be an integer from 0 to 65535, got ${port}`);
  return port;
}

function reportBuilder(
  dataDir: string,
  options: ReportViewerOptions,
  onBuilt: () => void,
): (entry: ReportEntry) => Promise<string> {
  const { thumbnails, soffice, env } = options;
  const common = { thumbnails, soffice, env };
  return async (entry) => {
    const started = performance.now();
    const result =
      entry.kind === 'run'
        ? await buildRunReport({ dataDir, run: entry.name, ...common })
        : entry.kind === 'bench'
          ? await buildBenchReport({ dir: join(dataDir, 'bench', 'runs', entry.name), ...common })
          : await buildRubricReport({ dir: join(dataDir, entry.name), ...common });
    onBuilt();
    options.onBuild?.(entry, performance.now() - started);
    return result.html;
  };
}

export function errorPage(error: unknown, dataDir: string): { status: number; html: string } {
  const status =
    error instanceof HttpError ? error.status : isXsbError(error) && error.kind !== 'internal' ? 422 : 500;
  const message = error instanceof HttpError ? error.message : describeError(error);
  const html = renderHtmlDocument({
    title: `xsb reports: ${status}`,
    subtitle: dataDir,
    toc: [],
    body: section(
      'error',
      'Cannot show this report',
      `<p>${escapeHtml(message)}</p><p><a href="/">all reports</a></p>`,
    ),
  });
  return { status, html };
}

function requestHandler(
  dataDir: string,
  build: (entry: ReportEntry) => Promise<string>,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const cache = new Map<string, { digest: string; html: Promise<string> }>();
  return async (request, response) => {
    const head = request.method === 'HEAD';
    try {
      if (request.method !== 'GET' && !head) throw new HttpError(405, `method ${request.method} not allowed`);
      const hostHeader = (request.headers.host ?? '').replace(/:\d+$/, '');
      if (hostHeader !== LOOPBACK && hostHeader !== 'localhost')
        throw new HttpError(403, 'only loopback hosts are served');
      const parts = pathParts(request.url ?? '/');
      const entries = await listReports(dataDir);
      if (parts.length === 0 || (parts.length === 1 && parts[0] === 'index.html'))
        return send(response, 200, indexPage(dataDir, entries), head);
      const entry = entryFor(parts, entries);
      const key = `${entry.kind}/${entry.name}`;
      const digest = await entryDigest(entry);
      let cached = cache.get(key);
      if (!cached || cached.digest !== digest) {
        cached = { digest, html: build(entry) };
        cache.set(key, cached);
        cached.html.catch(() => cache.delete(key));
      }
      send(response, 200, await cached.html, head);
    } catch (error) {
      const page = errorPage(error, dataDir);
      send(response, page.status, page.html, head);
    }
  };
}

/** `xsb view`; a Host that is not a loopback name is refused (DNS rebinding). */
export async function startReportViewer(options: ReportViewerOptions): Promise<ReportViewer> {
  const port = viewerPort(options);
  const dataDir = resolve(options.dataDir);
  let builds = 0;
  const handle = requestHandler(
    dataDir,
    reportBuilder(dataDir, options, () => {
      builds += 1;
    }),
  );
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`port ${port} on ${LOOPBACK} is in use; pick another port`, {
              code: 'port_in_use',
            })
          : error,
      ),
    );
    server.listen(port, LOOPBACK, () => resolveListen());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${LOOPBACK}:${actual}/`,
    port: actual,
    builds: () => builds,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
