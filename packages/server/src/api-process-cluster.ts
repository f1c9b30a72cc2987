import cluster, { type Worker } from 'node:cluster';
import { ConfigError, InternalError } from '@xsb/core';
import { createJsonLogger, type DrainResult, discardLines } from '@xsb/jobs';

/** Tells a forked process its index in the cluster (0 runs the job workers). */
const API_PROCESS_INDEX_VARIABLE = 'XSB_API_PROCESS_INDEX';

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

/** This process's index in an API cluster, or `undefined` when it is no member. */
export function apiClusterIndex(): number | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(process.env[API_PROCESS_INDEX_VARIABLE]);
  return Number.isInteger(index) && index >= 0 ? index : undefined;
}

/** A member reports its drain to the primary, then leaves: its IPC channel would keep the process alive. */
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

interface ApiClusterOptions {
  /** HTTP processes sharing one port (Node's cluster, round-robin connections); at least 2. */
  processes: number;
  log?: (line: string) => void;
}

interface ApiCluster {
  url: string;
  /** SIGTERM to every member; resolves with their summed drains. */
  shutdown(): Promise<DrainResult>;
  /** Rejects when the cluster stopped on a crash loop. */
  closed: Promise<DrainResult>;
}

function urlOf(address: { address: string | null; port: number }): string {
  const host = address.address && address.address !== '' ? address.address : '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/**
 * Forks N members that re-run this process's script and arguments, waits until all listen, and
 * replaces a member that dies (its running job returns to the queue when its lease runs out).
 * Why: one Node process answers a burst one request after another; N answer N at a time, given N
 * cores to spare (README: on 2 cores shared with the client it does not pay).
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

type MemberExit = 'ignore' | 'start-failed' | 'crash-loop' | 'replace';

/**
 * A member that dies before it ever listened, while the cluster starts, is a start failure; one that
 * had listened is replaced even if a sibling is still starting. `recentRestarts` counts this exit.
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

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.members.size === 0) this.settle();
    for (const worker of this.members.values()) worker.process.kill('SIGTERM');
    await this.allExited;
  }

  async closed(): Promise<DrainResult> {
    await this.allExited;
    if (this.failure) throw this.failure;
    return {
      finished: this.drains.reduce((sum, drain) => sum + drain.finished, 0),
      requeued: this.drains.flatMap((drain) => drain.requeued),
    };
  }
}
