import type { ApiJob, JobExecution, JobKind, JobProgress, JobStatus } from './schemas/api-job';
import type { ApiEvaluationRequest, ApiRubricEvaluationRequest } from './schemas/api-request';

/** A job as the store holds it: the API's job resource without its links. */
export type StoredJob = ApiJob & { executions: JobExecution[] };

export type JobRequest = ApiEvaluationRequest | ApiRubricEvaluationRequest;

export interface EnqueueInput {
  /** Chosen by the caller, so the upload can be staged under it before the job exists. */
  id: string;
  kind: JobKind;
  request: JobRequest;
  /** Equal keys while one job is queued or running: the second enqueue returns the first job. */
  dedupeKey: string;
  /**
   * Where the job writes (its deck folder) and what it writes there (the deck digest): while a job is
   * active at a location, a job with another digest there is refused, so two decks never overwrite
   * each other mid-evaluation.
   */
  location: { key: string; digest: string };
  submittedBy: string | null;
}

export type EnqueueOutcome =
  | { outcome: 'created'; job: StoredJob }
  | { outcome: 'duplicate'; job: StoredJob }
  | { outcome: 'location_busy'; job: StoredJob };

export interface ListJobsQuery {
  status?: JobStatus;
  /** Only the jobs this token name submitted (what a non-admin token may list). */
  submittedBy?: string;
  limit: number;
  /** Opaque, from the previous page's `nextCursor`. */
  cursor?: string;
}

export interface JobPage {
  jobs: StoredJob[];
  nextCursor: string | null;
}

/** A job a worker has started: `attempt` fences every later write of that worker. */
export interface StartedJob {
  job: StoredJob;
  attempt: number;
}

export type JobOutcome =
  | { status: 'done'; result: unknown }
  | { status: 'failed'; error: { code: string; message: string } }
  | { status: 'canceled' };

export type CancelOutcome = 'canceled' | 'cancel_requested' | 'already_finished';

/**
 * Delivers started attempts to a worker: by polling the SQLite table, or through a BullMQ worker on
 * Redis. `run` resolves `requeued` when a drain gave the job back (the source then releases it to
 * other workers) and `finished` otherwise.
 */
export interface JobSource {
  start(run: (started: StartedJob) => Promise<'finished' | 'requeued'>): void;
  /** Stops taking new jobs (deliveries in flight go on). */
  pause(): Promise<void>;
  /** Waits for deliveries in flight to return, then lets go of the queue. */
  close(): Promise<void>;
}

/**
 * The durable job queue. Client side: enqueue with a dedupe key, read, list, cancel. Worker side
 * (attempts come from its `source`): report progress, heartbeat (which also reports a cancel request), finish or
 * requeue it. Writes of an attempt are fenced by its number: a worker that lost its job (killed and
 * re-queued, or checkpointed by a drain) can no longer change it.
 */
export interface JobStore {
  readonly backend: 'sqlite' | 'redis';
  enqueue(input: EnqueueInput): Promise<EnqueueOutcome>;
  get(id: string): Promise<StoredJob | undefined>;
  list(query: ListJobsQuery): Promise<JobPage>;
  /** The result a finished job stored, or undefined. */
  result(id: string): Promise<unknown>;
  /** A queued job is canceled at once; a running one is asked to stop (`cancel_requested`). */
  cancel(id: string): Promise<{ outcome: CancelOutcome; job: StoredJob } | undefined>;

  progress(id: string, attempt: number, progress: JobProgress): Promise<void>;
  /** Extends the attempt's lease; true when a cancel was requested. */
  heartbeat(id: string, attempt: number): Promise<{ cancelRequested: boolean }>;
  /** Records the outcome; false when the attempt no longer owns the job (nothing changed). */
  finish(id: string, attempt: number, outcome: JobOutcome): Promise<boolean>;
  /** Gives a running attempt back to the queue (drain checkpoint); false when it no longer owns it. */
  requeue(id: string, attempt: number): Promise<boolean>;

  /** The source of job ids for a worker process. */
  source(options: { worker: string; concurrency: number }): JobSource;
  /** Throws when the store cannot be used (readiness). */
  check(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_PROGRESS: JobProgress = { phase: 'queued', done: 0, total: 0, message: null };

/** Cursors are opaque to clients: the sequence number of the last job of a page, base64url. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s(\d{1,15})$/.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}
