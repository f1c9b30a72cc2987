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
 * given N cores to spare beside the clients (packages/server/README.md: on 2 cores shared with the client it
 * does not pay).
 */
export async function startApiCluster(options: ApiClusterOptions): Promise<ApiCluster> {
  if (!cluster.isPrimary) throw new InternalError('startApiCluster runs in the primary process only');
  if (!Number.isInteger(options.processes) || options.processes < 2)
    throw new ConfigError(`an API cluster has at least 2 processes, got ${options.processes}`);
  const supervisor = new ClusterSupervisor(options);
  for (let index = 0; index < options.processes; index++) supervisor.fork(index);
  const url = await supervisor.started;
  const closed = supervisor.closed();
  // A crash loop ends the cluster by itself; `closed` carries the reason, no unhandled rejection meanwhile.
  closed.catch(() => {});
  let shutting: Promise<DrainResult> | undefined;
  return {
    url,
    closed,
    shutdown: () => {
      shutting ??= supervisor.stop().then(() => closed);
      return shutting;
    },
  };
}

/** What the primary does when a member exits. */
export type MemberExit = 'ignore' | 'start-failed' | 'crash-loop' | 'replace';

/**
 * The rule for a member's exit: nothing while the cluster stops; a member that dies before it ever
 * listened, while the cluster starts, is a start failure (its error is above); one that had listened
 * crashed, and is replaced even if a sibling is still starting — unless members crashed more than
 * five times within the last minute (`recentRestarts` counts this one).
 */
export function memberExit(state: {
  stopping: boolean;
  starting: boolean;
  listened: boolean;
  recentRestarts: number;
}): MemberExit {
  if (state.stopping) return 'ignore';
  if (state.starting && !state.listened) return 'start-failed';
  return state.recentRestarts > MAX_RESTARTS_PER_MINUTE ? 'crash-loop' : 'replace';
}

/** The primary's state: the members by index, their drains, the restarts of the last minute. */
class ClusterSupervisor {
  private readonly members = new Map<number, Worker>();
  private readonly drains: StoppedMessage[] = [];
  private readonly restarts: number[] = [];
  private readonly listening = new Map<number, string>();
  private readonly listened = new WeakSet<Worker>();
  private readonly log: (line: string) => void;
  private stopping = false;
  private failure: Error | undefined;
  private settle!: () => void;
  private readonly allExited = new Promise<void>((resolve) => {
    this.settle = resolve;
  });
  private onAllListening!: (url: string) => void;
  private onStartFailed!: (error: Error) => void;
  /** The URL once every member listens; rejects when one dies first. */
  readonly started = new Promise<string>((resolve, reject) => {
    this.onAllListening = resolve;
    this.onStartFailed = reject;
  });

  constructor(private readonly options: ApiClusterOptions) {
    const logger = createJsonLogger(options.log ?? discardLines, { process: 'primary' });
    this.log = (line) => logger.warn(line);
  }

  fork(index: number): void {
    const worker = cluster.fork({ [API_PROCESS_INDEX_VARIABLE]: String(index) });
    this.members.set(index, worker);
    worker.on('message', (message: unknown) => {
      if (isStoppedMessage(message)) this.drains.push(message);
    });
    worker.on('listening', (address) => {
      this.listened.add(worker);
      this.listening.set(index, urlOf(address));
      if (this.listening.size === this.options.processes) this.onAllListening(this.listening.get(0)!);
    });
    worker.on('exit', (code, signal) => this.exited(index, worker, signal ?? `code ${code}`));
  }

  private exited(index: number, worker: Worker, how: string): void {
    if (this.members.get(index) === worker) this.members.delete(index);
    const now = Date.now();
    const stopping = this.stopping || this.failure !== undefined;
    if (!stopping) {
      this.restarts.push(now);
      while (this.restarts.length > 0 && this.restarts[0]! < now - 60_000) this.restarts.shift();
    }
    const action = memberExit({
      stopping,
      starting: this.listening.size < this.options.processes,
      listened: this.listened.has(worker),
      recentRestarts: this.restarts.length,
    });
    if (action === 'ignore') {
      if (this.members.size === 0) this.settle();
    } else if (action === 'start-failed') {
      this.failure = new ConfigError(
        `API process ${index} exited (${how}) before it listened; its error is above`,
      );
      this.onStartFailed(this.failure);
      void this.stop();
    } else if (action === 'crash-loop') {
      this.failure = new InternalError(
        `API processes crashed ${this.restarts.length} times within a minute; the cluster stops`,
      );
      this.log(this.failure.message);
      void this.stop();
    } else {
      this.log(`API process ${index} (pid ${worker.process.pid}) exited (${how}); starting another`);
      this.fork(index);
    }
  }

  /** SIGTERM to every member; resolves once all have exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.members.size === 0) this.settle();
    for (const worker of this.members.values()) worker.process.kill('SIGTERM');
    await this.allExited;
  }

  /** Settles once every member has exited: the summed drains, or the failure that stopped the cluster. */
  async closed(): Promise<DrainResult> {
    await this.allExited;
    if (this.failure) throw this.failure;
    return {
      finished: this.drains.reduce((sum, drain) => sum + drain.finished, 0),
      requeued: this.drains.flatMap((drain) => drain.requeued),
    };
  }
}
