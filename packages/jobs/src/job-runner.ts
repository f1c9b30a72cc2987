import { randomUUID } from 'node:crypto';
import { describeError, isDiskFull, isXsbError, type JobKind, type JobProgress } from '@xsb/core';
import type { JobOutcome, JobSource, JobStore, StartedJob, StoredJob } from './job-store';

export interface JobHandlerContext {
  /** Aborted when the job is canceled or a drain gave it back; handlers stop at their next step. */
  signal: AbortSignal;
  attempt: number;
  worker: string;
  reportProgress(progress: JobProgress): void;
}

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

export function defaultWorkerId(): string {
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
  const worker = options.worker ?? defaultWorkerId();
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const log = options.log ?? (() => {});
  const diskRetry = options.diskRetry ?? { attempts: 6, delayMs: 10_000 };
  const active = new Map<string, ActiveJob>();
  const source: JobSource = options.store.source({ worker, concurrency: options.concurrency });

  async function execute(started: StartedJob, entry: ActiveJob): Promise<'finished' | 'requeued'> {
    const { job, attempt } = started;
    const { store } = options;
    let progressChain: Promise<void> = Promise.resolve();
    const context: JobHandlerContext = {
      signal: entry.controller.signal,
      attempt,
      worker,
      reportProgress(progress) {
        progressChain = progressChain.then(() => store.progress(job.id, attempt, progress)).catch(() => {});
      },
    };
    let outcome: JobOutcome;
    try {
      const handler = options.handlers[job.kind];
      const result = await handler(job, context);
      outcome = { status: 'done', result };
    } catch (error) {
      if (entry.controller.signal.reason instanceof CancelRequested) outcome = { status: 'canceled' };
      else if (isDiskFull(error) && attempt < diskRetry.attempts) {
        await progressChain;
        return retryAfterDiskFull(job, attempt, entry, error);
      } else if (isDiskFull(error)) {
        log(`job ${job.id}: the disk stayed full for ${attempt} attempts (${describeError(error)})`);
        outcome = {
          status: 'failed',
          error: {
            code: 'insufficient_storage',
            message: `the server's disk stayed full for ${attempt} attempts`,
          },
        };
      } else outcome = { status: 'failed', error: errorBody(error, job.id, log) };
    }
    await progressChain;
    if (entry.givenBack) return 'requeued';
    try {
      // A cancel that arrived after the last heartbeat still wins over a result not yet recorded.
      const { cancelRequested } = await store.heartbeat(job.id, attempt);
      if (cancelRequested) outcome = { status: 'canceled' };
      if (await store.finish(job.id, attempt, outcome)) {
        log(`job ${job.id} ${outcome.status} (attempt ${attempt})`);
        await options.onFinished?.(job, outcome);
      }
    } catch (error) {
      // The store did not take the outcome: the job stays running until its lease lapses, then runs again.
      log(`job ${job.id}: could not record its outcome (${describeError(error)}); it will run again`);
    }
    return 'finished';
  }

  /** Waits (a drain cuts the wait short), then gives the job back to the queue for a later attempt. */
  async function retryAfterDiskFull(
    job: StoredJob,
    attempt: number,
    entry: ActiveJob,
    error: unknown,
  ): Promise<'finished' | 'requeued'> {
    log(`job ${job.id}: the disk is full (${describeError(error)}); queued again in ${diskRetry.delayMs} ms`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, diskRetry.delayMs);
      entry.controller.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (entry.givenBack) return 'requeued';
    return (await options.store.requeue(job.id, attempt).catch(() => false)) ? 'requeued' : 'finished';
  }

  // Set by drain. A delivery already in flight when the source paused (BullMQ's worker has started the
  // attempt but not yet handed it here) arrives after drain looked at `active`; it goes straight back.
  let draining = false;
  const turnedAway: string[] = [];

  source.start(async (started) => {
    const { job, attempt } = started;
    if (draining) {
      if (await options.store.requeue(job.id, attempt)) turnedAway.push(job.id);
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
    active.set(job.id, entry);
    log(`job ${job.id} started (attempt ${attempt}, ${job.kind})`);
    const heartbeat = setInterval(() => {
      options.store
        .heartbeat(job.id, attempt)
        .then(({ cancelRequested }) => {
          if (cancelRequested && !entry.controller.signal.aborted)
            entry.controller.abort(new CancelRequested());
        })
        .catch((error) => log(`job ${job.id}: heartbeat failed (${describeError(error)})`));
    }, heartbeatMs);
    try {
      entry.done = execute(started, entry);
      return await Promise.race([entry.done as Promise<'finished' | 'requeued'>, givenBack]);
    } finally {
      clearInterval(heartbeat);
      active.delete(job.id);
    }
  });

  return {
    worker,
    running: () => active.size,
    async drain(timeoutMs) {
      draining = true;
      await source.pause();
      const before = active.size;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...active.values()].map((entry) => entry.done)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      const requeued: string[] = [];
      for (const [id, entry] of [...active]) {
        entry.controller.abort(new DrainDeadline());
        if (await options.store.requeue(id, entry.attempt)) {
          requeued.push(id);
          entry.giveBack();
        }
      }
      await source.close();
      return { finished: before - requeued.length, requeued: [...requeued, ...turnedAway] };
    },
  };
}
