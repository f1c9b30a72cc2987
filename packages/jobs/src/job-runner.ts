import { randomUUID } from 'node:crypto';
import { describeError, isDiskFull, isXsbError, type StageEvent, type StageEventListener } from '@xsb/core';
import type { JobOutcome, JobSource, JobStore, StartedJob, StoredJob } from './job-store';
import type { JobKind, JobProgress } from './schemas/api-job';

export interface JobHandlerContext {
  /** Aborted when the job is canceled or a drain gave it back; handlers stop at their next step. */
  signal: AbortSignal;
  attempt: number;
  worker: string;
  reportProgress(progress: JobProgress): void;
  /**
   * The stage events of the job's work (pass it as the stages' `onEvent`): the runner publishes them to
   * `JobRunnerOptions.onEvent`, which `xsb serve` relays as the job's `stage` server-sent events.
   */
  onEvent: StageEventListener;
}

/** A listener to the stage events of every job a runner runs. */
export type JobEventListener = (jobId: string, event: StageEvent) => void;

/** Runs one job to its result (stored as is) or throws (the job fails with the error's code and message). */
export type JobHandler = (job: StoredJob, context: JobHandlerContext) => Promise<unknown>;

export interface JobRunnerOptions {
  store: JobStore;
  handlers: Record<JobKind, JobHandler>;
  /** Jobs run at once (`--workers`). */
  concurrency: number;
  /** Default `worker-<random>`: job records show it to clients, so it names no host or process. */
  worker?: string;
  /** How often a running job extends its lease and looks for a cancel request (default 1 s). */
  heartbeatMs?: number;
  /** Called once a job reached its final status in the store (e.g. to remove its staged upload). */
  onFinished?: (job: StoredJob, outcome: JobOutcome) => Promise<void>;
  log?: (line: string) => void;
  /** Receives every stage event of every job, in order (a throwing listener never fails the job). */
  onEvent?: JobEventListener;
  /**
   * A job that met a full disk (ENOSPC, EDQUOT) waits `delayMs` and goes back to the queue instead of
   * failing, up to `attempts` attempts in all (then it fails `insufficient_storage`). Default 6 × 10 s.
   */
  diskRetry?: { attempts: number; delayMs: number };
}

export interface DrainResult {
  /** Jobs that finished while the drain waited. */
  finished: number;
  /** Jobs still running at the deadline, or delivered while the drain ran, checkpointed as queued for the next worker. */
  requeued: string[];
}

export interface JobRunner {
  readonly worker: string;
  running(): number;
  /** Stops taking jobs, waits up to `timeoutMs` for the running ones, then queues the rest again. */
  drain(timeoutMs: number): Promise<DrainResult>;
}

class CancelRequested extends Error {
  constructor() {
    super('the job was canceled');
  }
}
class DrainDeadline extends Error {
  constructor() {
    super('the worker is shutting down; the job goes back to the queue');
  }
}

interface ActiveJob {
  done: Promise<unknown>;
  attempt: number;
  controller: AbortController;
  giveBack: () => void;
  givenBack: boolean;
}

/** A heartbeat well inside a lease: a third of it, at most every second (it also polls for cancels). */
export function heartbeatForLease(leaseMs = 30_000): number {
  return Math.max(50, Math.min(1000, Math.floor(leaseMs / 3)));
}

function defaultWorkerId(): string {
  return `worker-${randomUUID().slice(0, 8)}`;
}

/** What a job record may say of a fault the server met: no path, host, process or OS error. */
const INTERNAL_JOB_ERROR = 'the job failed on the server; the worker log has the detail under the job id';

/**
 * An absolute POSIX path where a message quotes one: at its start, or after a space, a quote, `(`, `=`
 * or `:` (`record:/data/…`), but not a URL's `//host`.
 */
const ABSOLUTE_PATH = /(^|[\s'"`(=:])\/(?!\/)(?:[^\s'"`(),;]+\/)*([^\s'"`(),;/]*)/g;

/** A message with every absolute path cut down to its last part (`…/probes.jsonl`). */
export function withoutAbsolutePaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, (_match, before: string, last: string) => `${before}…/${last}`);
}

/**
 * The error a failed job records, which its submitter reads: an xsb error about the request, the deck
 * or the judge keeps its code and message (paths cut to their last part); anything else — a raw OS
 * error, a bug — is `internal` with a fixed sentence, and the detail goes to the worker's log.
 */
function errorBody(
  error: unknown,
  jobId: string,
  log: (line: string) => void,
): { code: string; message: string } {
  if (isXsbError(error) && error.kind !== 'internal')
    return { code: error.code, message: withoutAbsolutePaths(describeError(error)) || 'failed' };
  log(`job ${jobId} failed on the server: ${describeError(error)}`);
  return { code: 'internal', message: INTERNAL_JOB_ERROR };
}

/**
 * Runs the jobs a store's source delivers, at most `concurrency` at once, each with a heartbeat that
 * extends its lease and turns a cancel request into an aborted signal. A handler's result or error
 * becomes the job's outcome, written only while this attempt still owns the job.
 */
export function startJobRunner(options: JobRunnerOptions): JobRunner {
  const runner = new Runner(options);
  runner.source.start((started) => runner.deliver(started));
  return {
    worker: runner.worker,
    running: () => runner.active.size,
    drain: (timeoutMs) => runner.drain(timeoutMs),
  };
}

type AttemptEnd = 'finished' | 'requeued';

/**
 * What a handler's error makes of the job: canceled (a cancel request aborted it), a full disk
 * (queued again while attempts are left, then failed `insufficient_storage`), or failed with its error.
 */
export function fateOfError(
  error: unknown,
  state: { canceled: boolean; attempt: number; diskAttempts: number },
): 'canceled' | 'retry-disk' | 'disk-stayed-full' | 'failed' {
  if (state.canceled) return 'canceled';
  if (!isDiskFull(error)) return 'failed';
  return state.attempt < state.diskAttempts ? 'retry-disk' : 'disk-stayed-full';
}

class Runner {
  readonly worker: string;
  readonly active = new Map<string, ActiveJob>();
  readonly source: JobSource;
  private readonly heartbeatMs: number;
  private readonly log: (line: string) => void;
  private readonly diskRetry: { attempts: number; delayMs: number };
  // Set by drain. A delivery already in flight when the source paused (BullMQ's worker has started the
  // attempt but not yet handed it here) arrives after drain looked at `active`; it goes straight back.
  private draining = false;
  private readonly turnedAway: string[] = [];

  constructor(private readonly options: JobRunnerOptions) {
    this.worker = options.worker ?? defaultWorkerId();
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.log = options.log ?? (() => {});
    this.diskRetry = options.diskRetry ?? { attempts: 6, delayMs: 10_000 };
    this.source = options.store.source({ worker: this.worker, concurrency: options.concurrency });
  }

  /** One delivered attempt: run it with a heartbeat until it ends or a drain gives it back. */
  async deliver(started: StartedJob): Promise<AttemptEnd> {
    const { job, attempt } = started;
    if (this.draining) {
      if (await this.options.store.requeue(job.id, attempt)) this.turnedAway.push(job.id);
      return 'requeued';
    }
    let giveBack: () => void = () => {};
    const givenBack = new Promise<'requeued'>((resolve) => {
      giveBack = () => resolve('requeued');
    });
    const entry: ActiveJob = {
      done: Promise.resolve(),
      attempt,
      controller: new AbortController(),
      giveBack: () => {
        entry.givenBack = true;
        giveBack();
      },
      givenBack: false,
    };
    this.active.set(job.id, entry);
    this.log(`job ${job.id} started (attempt ${attempt}, ${job.kind})`);
    const heartbeat = setInterval(() => this.beat(job.id, entry), this.heartbeatMs);
    try {
      const done = this.execute(started, entry);
      entry.done = done;
      return await Promise.race([done, givenBack]);
    } finally {
      clearInterval(heartbeat);
      this.active.delete(job.id);
    }
  }

  /** Extends the lease; a cancel request aborts the handler's signal. */
  private beat(id: string, entry: ActiveJob): void {
    this.options.store
      .heartbeat(id, entry.attempt)
      .then(({ cancelRequested }) => {
        if (cancelRequested && !entry.controller.signal.aborted)
          entry.controller.abort(new CancelRequested());
      })
      .catch((error) => this.log(`job ${id}: heartbeat failed (${describeError(error)})`));
  }

  private async execute(started: StartedJob, entry: ActiveJob): Promise<AttemptEnd> {
    const { job, attempt } = started;
    let progressChain: Promise<void> = Promise.resolve();
    const context: JobHandlerContext = {
      signal: entry.controller.signal,
      attempt,
      worker: this.worker,
      reportProgress: (progress) => {
        progressChain = progressChain
          .then(() => this.options.store.progress(job.id, attempt, progress))
          .catch(() => {});
      },
      onEvent: (event) => this.publish(job.id, event),
    };
    let outcome: JobOutcome;
    try {
      outcome = { status: 'done', result: await this.options.handlers[job.kind](job, context) };
    } catch (error) {
      const fate = fateOfError(error, {
        canceled: entry.controller.signal.reason instanceof CancelRequested,
        attempt,
        diskAttempts: this.diskRetry.attempts,
      });
      if (fate === 'retry-disk') {
        await progressChain;
        return this.retryAfterDiskFull(job, attempt, entry, error);
      }
      outcome = this.failedOutcome(job.id, attempt, error, fate);
    }
    await progressChain;
    if (entry.givenBack) return 'requeued';
    await this.record(job, attempt, outcome);
    return 'finished';
  }

  private failedOutcome(
    jobId: string,
    attempt: number,
    error: unknown,
    fate: 'canceled' | 'disk-stayed-full' | 'failed',
  ): JobOutcome {
    if (fate === 'canceled') return { status: 'canceled' };
    if (fate === 'failed') return { status: 'failed', error: errorBody(error, jobId, this.log) };
    this.log(`job ${jobId}: the disk stayed full for ${attempt} attempts (${describeError(error)})`);
    const message = `the server's disk stayed full for ${attempt} attempts`;
    return { status: 'failed', error: { code: 'insufficient_storage', message } };
  }

  private publish(jobId: string, event: StageEvent): void {
    try {
      this.options.onEvent?.(jobId, event);
    } catch (error) {
      this.log(`job ${jobId}: an event listener failed (${describeError(error)})`);
    }
  }

  /** Writes the outcome while this attempt owns the job; a cancel not yet seen still wins over a result. */
  private async record(job: StoredJob, attempt: number, outcome: JobOutcome): Promise<void> {
    const { store } = this.options;
    try {
      const { cancelRequested } = await store.heartbeat(job.id, attempt);
      const final: JobOutcome = cancelRequested ? { status: 'canceled' } : outcome;
      if (await store.finish(job.id, attempt, final)) {
        this.log(`job ${job.id} ${final.status} (attempt ${attempt})`);
        await this.options.onFinished?.(job, final);
      }
    } catch (error) {
      // The store did not take the outcome: the job stays running until its lease lapses, then runs again.
      this.log(`job ${job.id}: could not record its outcome (${describeError(error)}); it will run again`);
    }
  }

  /** Waits (a drain cuts the wait short), then gives the job back to the queue for a later attempt. */
  private async retryAfterDiskFull(
    job: StoredJob,
    attempt: number,
    entry: ActiveJob,
    error: unknown,
  ): Promise<AttemptEnd> {
    this.log(
      `job ${job.id}: the disk is full (${describeError(error)}); queued again in ${this.diskRetry.delayMs} ms`,
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.diskRetry.delayMs);
      entry.controller.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (entry.givenBack) return 'requeued';
    return (await this.options.store.requeue(job.id, attempt).catch(() => false)) ? 'requeued' : 'finished';
  }

  /** Stops taking jobs, waits up to `timeoutMs` for the running ones, then queues the rest again. */
  async drain(timeoutMs: number): Promise<DrainResult> {
    this.draining = true;
    await this.source.pause();
    const before = this.active.size;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.active.values()].map((entry) => entry.done)),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    const requeued: string[] = [];
    for (const [id, entry] of [...this.active]) {
      entry.controller.abort(new DrainDeadline());
      if (await this.options.store.requeue(id, entry.attempt)) {
        requeued.push(id);
        entry.giveBack();
      }
    }
    await this.source.close();
    return { finished: before - requeued.length, requeued: [...requeued, ...this.turnedAway] };
  }
}
