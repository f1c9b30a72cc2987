import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { ConfigError, type ProviderLimits, plural, processIsAlive } from '@xsb/core';
import {
  ApiDataLayout,
  createJsonLogger,
  type DrainResult,
  discardLines,
  heartbeatForLease,
  type JobEventListener,
  JobEvents,
  type JobRunner,
  type JobStore,
  openJobStore,
  startJobWorker,
} from '@xsb/jobs';
import { type ApiAppOptions, createApiApp } from './create-api-app';

export interface StartApiServerOptions
  extends Omit<ApiAppOptions, 'store' | 'tmpDir' | 'events' | 'isDraining' | 'logger' | 'now'> {
  host?: string;
  port?: number;
  /** `redis://HOST:PORT`: jobs on BullMQ; unset: the SQLite store in the data folder. */
  queue?: string;
  /** Jobs this process runs at once; 0 serves HTTP only (workers run elsewhere). */
  workers?: number;
  drainTimeoutMs?: number;
  leaseMs?: number;
  cacheDir?: string;
  noCache?: boolean;
  providers?: Record<string, ProviderLimits>;
  /** An already opened store (tests); default `openJobStore`. */
  store?: JobStore;
  /** Receives the server log, one JSON object per line (pino). */
  log?: (line: string) => void;
  /** Fields on every log line (a cluster member's `process`). */
  logFields?: Record<string, unknown>;
  diskRetry?: { attempts: number; delayMs: number };
  /** Every stage event of the jobs this server's workers run. */
  onEvent?: JobEventListener;
}

export interface ApiServer {
  url: string;
  port: number;
  store: JobStore;
  /** Stops accepting (503), lets running jobs finish within the drain timeout, queues the rest, closes. */
  shutdown(): Promise<DrainResult>;
  closed: Promise<DrainResult>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** The refusal to start without tokens, unless `--insecure-local` on a loopback host. */
export function checkServerSecurity(options: {
  tokens: readonly unknown[];
  insecureLocal?: boolean;
  host: string;
}): void {
  if (options.tokens.length > 0) return;
  if (!options.insecureLocal)
    throw new ConfigError(
      'no API token is configured: set XSB_API_TOKENS=name:token:evaluate+read (or api.tokens in the config), or serve without auth on a loopback host (insecure local mode)',
      { code: 'no_api_tokens' },
    );
  if (!LOOPBACK.test(options.host))
    throw new ConfigError(
      `insecure local mode serves without auth and only on a loopback host (127.0.0.1, ::1, localhost), not on ${options.host}`,
    );
}

// Each process has its own upload folder `api/tmp/<host>-<pid>`; those of dead processes of this host are removed.
async function prepareTmpDir(dataDir: string): Promise<string> {
  const root = new ApiDataLayout(dataDir).tmpDir();
  const host = hostname();
  await mkdir(root, { recursive: true });
  for (const name of await readdir(root)) {
    const match = /^(.*)-(\d+)$/.exec(name);
    if (match && match[1] === host && Number(match[2]) !== process.pid && !processIsAlive(Number(match[2])))
      await rm(join(root, name), { recursive: true, force: true });
  }
  const own = join(root, `${host}-${process.pid}`);
  if (existsSync(own)) await rm(own, { recursive: true, force: true });
  await mkdir(own, { recursive: true });
  return own;
}

/** `xsb serve`: the API on `host:port` with its job workers in the same process; the caller wires signals. */
export async function startApiServer(options: StartApiServerOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  checkServerSecurity({ tokens: options.tokens, insecureLocal: options.insecureLocal, host });
  const logger = createJsonLogger(options.log ?? discardLines, options.logFields);
  const log = (line: string) => logger.info(line);
  const tmpDir = await prepareTmpDir(options.dataDir);
  const store =
    options.store ??
    openJobStore({
      dataDir: options.dataDir,
      ...(options.queue ? { queue: options.queue } : {}),
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    });
  await store.check();
  const state = { draining: false };
  const events = new JobEvents();
  const app = createApiApp({
    ...options,
    store,
    tmpDir,
    isDraining: () => state.draining,
    logger,
    events,
  });
  const workers = options.workers ?? 2;
  const onEvent: JobEventListener = (jobId, event) => {
    events.publish(jobId, event);
    options.onEvent?.(jobId, event);
  };
  const runner =
    workers > 0
      ? startJobWorker({
          ...options,
          store,
          concurrency: workers,
          heartbeatMs: heartbeatForLease(options.leaseMs),
          log,
          onEvent,
        })
      : undefined;
  const server = await listen(app.fetch, host, options.port ?? 8787);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 8787);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let shutting: Promise<DrainResult> | undefined;
  let resolveClosed!: (result: DrainResult) => void;
  const closed = new Promise<DrainResult>((resolve) => {
    resolveClosed = resolve;
  });
  const shutdown = () => {
    state.draining = true;
    shutting ??= drainAndClose({ options, runner, server, store, tmpDir, log }).then((result) => {
      resolveClosed(result);
      return result;
    });
    return shutting;
  };
  log(
    `listening on http://${shownHost}:${port} (data ${options.dataDir}, ${store.backend} job store, ${plural(workers, 'worker')})`,
  );
  return { url: `http://${shownHost}:${port}`, port, store, shutdown, closed };
}

function listen(fetch: (request: Request) => Response | Promise<Response>, host: string, port: number) {
  return new Promise<Server>((resolve, reject) => {
    const started = serve({ fetch, hostname: host, port }, () => resolve(started as Server)) as Server;
    started.once('error', reject);
  });
}

/** Running jobs get the drain timeout, the rest are queued again; then the server closes. */
async function drainAndClose(parts: {
  options: StartApiServerOptions;
  runner: JobRunner | undefined;
  server: Server;
  store: JobStore;
  tmpDir: string;
  log: (line: string) => void;
}): Promise<DrainResult> {
  const { options, runner, server, log } = parts;
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
  log(`draining: new work is refused; waiting up to ${drainTimeoutMs} ms for running jobs`);
  const result = runner ? await runner.drain(drainTimeoutMs) : { finished: 0, requeued: [] };
  if (result.requeued.length > 0)
    log(`checkpointed ${plural(result.requeued.length, 'running job')} as queued`);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  if (!options.store) await parts.store.close();
  await rm(parts.tmpDir, { recursive: true, force: true });
  return result;
}
