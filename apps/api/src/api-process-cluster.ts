import cluster, { type Worker } from 'node:cluster';
import { ConfigError, InternalError } from '@xsb/core';
import { createJsonLogger, type DrainResult, discardLines } from '@xsb/jobs';

/** The environment variable that tells a forked process its index in the cluster (0 runs the job workers). */
export const API_PROCESS_INDEX_VARIABLE = 'XSB_API_PROCESS_INDEX';

/** A crash loop stops the cluster: more than this many replacements within a minute. */
const MAX_RESTARTS_PER_MINUTE = 5;

interface StoppedMessage {
  type: 'xsb-api-stopped';
  finished: number;
  requeued: string[];
}

const isStoppedMessage = (message: unknown): message is StoppedMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'xsb-api-stopped';

/**
 * This process's place in an API cluster: `undefined` in a process that is not a cluster member, else
 * its index (0 … processes − 1). A member runs `startApiServer` as a lone server would, with its job
 * workers only when the index is 0, and reports its drain with `reportClusterStop`.
 */
export function apiClusterIndex(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(process.env[API_PROCESS_INDEX_VARIABLE]);
  return Number.isInteger(index) && index >= 0 ? index : undefined;
}

/**
 * A member tells the primary what its drain did, so the primary can sum the cluster's, then leaves
 * the cluster: its IPC channel would otherwise keep the process alive after the server closed.
 */
export async function reportClusterStop(result: DrainResult): Promise<void> {
  const message: StoppedMessage = {
    type: 'xsb-api-stopped',
    finished: result.finished,
    requeued: result.requeued,
  };
  await new Promise<void>((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
  if (process.connected) cluster.worker?.disconnect();
}

export interface ApiClusterOptions {
  /** HTTP processes sharing one port (Node's cluster, round-robin connections); at least 2. */
  processes: number;
  log?: (line: string) => void;
}

export interface ApiCluster {
  /** `http://host:port` as the members bound it (port 0 resolved: every member shares it). */
  url: string;
  /** SIGTERM to every member (each drains as a lone server does); resolves with their summed drains. */
  shutdown(): Promise<DrainResult>;
  /** Settles once every member has exited; rejects when the cluster stopped on a crash loop. */
  closed: Promise<DrainResult>;
}

function urlOf(address: { address: string | null; port: number }): string {
  const host = address.address && address.address !== '' ? address.address : '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * `xsb serve --processes N`: forks N members that re-run this process's own script and arguments (so
 * each builds its server from the same flags and config), waits until all listen, and keeps them up:
 * a member that dies is replaced under the same index (its running job returns to the queue when its
 * lease runs out), unless members crash more than five times a minute. Called in the primary only.
 * Why: one Node process answers a burst of requests one after another; N processes answer N at a time,
 * given N cores to spare beside the clients (apps/api/README.md: on 2 cores shared with the client it
 * does not pay).
 */
export async function startApiCluster(options: ApiClusterOptions): Promise<ApiCluster> {
  if (!cluster.isPrimary) throw new InternalError('startApiCluster runs in the primary process only');
  if (!Number.isInteger(options.processes) || options.processes < 2)
    throw new ConfigError(`an API cluster has at least 2 processes, got ${options.processes}`);
  const logger = createJsonLogger(options.log ?? discardLines, { process: 'primary' });
  const log = (line: string) => logger.warn(line);
  const members = new Map<number, Worker>();
  const drains: StoppedMessage[] = [];
  const restarts: number[] = [];
  let stopping = false;
  let failure: Error | undefined;
  let settle!: () => void;
  const allExited = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const listening = new Map<number, string>();
  const listened = new WeakSet<Worker>();
  let onAllListening!: (url: string) => void;
  let onStartFailed!: (error: Error) => void;
  const started = new Promise<string>((resolve, reject) => {
    onAllListening = resolve;
    onStartFailed = reject;
  });

  const fork = (index: number) => {
    const worker = cluster.fork({ [API_PROCESS_INDEX_VARIABLE]: String(index) });
    members.set(index, worker);
    worker.on('message', (message: unknown) => {
      if (isStoppedMessage(message)) drains.push(message);
    });
    worker.on('listening', (address) => {
      listened.add(worker);
      listening.set(index, urlOf(address));
      if (listening.size === options.processes) onAllListening(listening.get(0)!);
    });
    worker.on('exit', (code, signal) => {
      if (members.get(index) === worker) members.delete(index);
      if (stopping || failure) {
        if (members.size === 0) settle();
        return;
      }
      // A member that dies before it ever listened, while the cluster starts, is a start failure (its
      // error is above); one that had listened crashed, and is replaced even if a sibling is still starting.
      if (listening.size < options.processes && !listened.has(worker)) {
        failure = new ConfigError(
          `API process ${index} exited (${signal ?? `code ${code}`}) before it listened; its error is above`,
        );
        onStartFailed(failure);
        void stopMembers();
        return;
      }
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
      if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
        failure = new InternalError(
          `API processes crashed ${restarts.length} times within a minute; the cluster stops`,
        );
        log(failure.message);
        void stopMembers();
        return;
      }
      log(
        `API process ${index} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); starting another`,
      );
      fork(index);
    });
  };

  const stopMembers = async () => {
    if (members.size === 0) settle();
    for (const worker of members.values()) worker.process.kill('SIGTERM');
    await allExited;
  };

  for (let index = 0; index < options.processes; index++) fork(index);
  const url = await started;
  const closed = allExited.then(() => {
    if (failure) throw failure;
    return {
      finished: drains.reduce((sum, drain) => sum + drain.finished, 0),
      requeued: drains.flatMap((drain) => drain.requeued),
    };
  });
  // A crash loop ends the cluster by itself; `closed` carries the reason, no unhandled rejection meanwhile.
  closed.catch(() => {});
  let shutting: Promise<DrainResult> | undefined;
  return {
    url,
    closed,
    shutdown: () => {
      shutting ??= (async () => {
        stopping = true;
        await stopMembers();
        return closed;
      })();
      return shutting;
    },
  };
}
