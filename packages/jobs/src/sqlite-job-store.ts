import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { InternalError, processIsAlive } from '@xsb/core';
import Database from 'better-sqlite3';
import {
  type CancelOutcome,
  DEFAULT_PROGRESS,
  decodeCursor,
  type EnqueueInput,
  type EnqueueOutcome,
  encodeCursor,
  type JobOutcome,
  type JobPage,
  type JobSource,
  type JobStore,
  type ListJobsQuery,
  type StartedJob,
  type StoredJob,
} from './job-store';
import type { JobExecution, JobProgress, JobStatus } from './schemas/api-job';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  request TEXT NOT NULL,
  dedupe_key TEXT NOT NULL,
  location_key TEXT NOT NULL,
  location_digest TEXT NOT NULL,
  progress TEXT NOT NULL,
  result TEXT,
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  submitted_by TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT,
  lease_host TEXT,
  lease_pid INTEGER,
  lease_expires_at INTEGER,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS jobs_active_dedupe ON jobs(dedupe_key) WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS jobs_active_location ON jobs(location_key) WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS jobs_status_seq ON jobs(status, seq);
CREATE INDEX IF NOT EXISTS jobs_owner_seq ON jobs(submitted_by, seq);
CREATE TABLE IF NOT EXISTS executions (
  job_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  worker TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  outcome TEXT,
  PRIMARY KEY (job_id, attempt)
);
`;

/**
 * The columns a job reads back, its executions folded in as one JSON array so a read is one statement
 * (one WAL read lock, the dominant cost of a status request); `result` (often kilobytes) is read only
 * by `result()`.
 */
const JOB_COLUMNS = `seq, id, kind, status, request, progress, error, attempts, submitted_by, cancel_requested,
  created_at, started_at, finished_at,
  (SELECT json_group_array(json_object('attempt', attempt, 'worker', worker, 'started_at', started_at,
     'finished_at', finished_at, 'outcome', outcome) ORDER BY attempt)
   FROM executions WHERE job_id = jobs.id) AS executions`;

interface JobRow {
  seq: number;
  id: string;
  kind: string;
  status: string;
  request: string;
  progress: string;
  error: string | null;
  attempts: number;
  submitted_by: string | null;
  cancel_requested: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** A JSON array of the job's executions, in attempt order. */
  executions: string;
}

export interface SqliteJobStoreOptions {
  /** How long an attempt owns its job without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** How often an idle worker looks for a queued job (default 250 ms; a local enqueue wakes it at once). */
  pollMs?: number;
}

/** How many jobs `get` keeps between changes of the database (the oldest read goes first). */
const READ_CACHE_JOBS = 1024;

/** A cached job is shared by every reader, so none may change it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * The job store of one machine: an embedded SQLite database (WAL, synchronous FULL: an accepted job
 * survives a crash of the process and of the machine). Several processes of one machine may share the
 * file (`xsb serve` and `xsb worker --data D`). An attempt holds a lease that its heartbeat extends; a
 * running job whose lease ran out, or whose worker on this host is gone (a `kill -9`), is queued
 * again by the next worker that looks, so no accepted job is lost.
 */
export class SqliteJobStore implements JobStore {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly host = hostname();
  private readonly wakers = new Set<() => void>();
  private readonly statements = new Map<string, Database.Statement>();
  /** Jobs read since the database last changed, and the change stamp they were read at. */
  private readonly readCache = new Map<string, StoredJob>();
  private readStamp = '';

  constructor(
    readonly file: string,
    options: SqliteJobStoreOptions = {},
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 250;
  }

  /** Statements compile once per store: compiling costs more than most of these queries. */
  private sql<P extends unknown[] = unknown[], R = unknown>(text: string): Database.Statement<P, R> {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  }

  private toJob(row: JobRow): StoredJob {
    return {
      id: row.id,
      kind: row.kind as StoredJob['kind'],
      status: row.status as JobStatus,
      request: JSON.parse(row.request),
      progress: JSON.parse(row.progress),
      error: row.error === null ? null : JSON.parse(row.error),
      attempts: row.attempts,
      submitted_by: row.submitted_by,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
      cancel_requested: row.cancel_requested === 1,
      executions: JSON.parse(row.executions) as JobExecution[],
    };
  }

  private row(id: string): JobRow | undefined {
    return this.sql<[string], JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(id);
  }

  private mustGet(id: string): StoredJob {
    const row = this.row(id);
    if (!row) throw new InternalError(`job ${id} vanished from the store`);
    return this.toJob(row);
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueOutcome> {
    const outcome = this.db
      .transaction((): { outcome: EnqueueOutcome['outcome']; id: string } => {
        const duplicate = this.sql<[string], { id: string }>(
          "SELECT id FROM jobs WHERE dedupe_key = ? AND status IN ('queued', 'running')",
        ).get(input.dedupeKey);
        if (duplicate) return { outcome: 'duplicate', id: duplicate.id };
        const busy = this.sql<[string, string], { id: string }>(
          "SELECT id FROM jobs WHERE location_key = ? AND location_digest <> ? AND status IN ('queued', 'running') ORDER BY seq LIMIT 1",
        ).get(input.location.key, input.location.digest);
        if (busy) return { outcome: 'location_busy', id: busy.id };
        this.sql(
          `INSERT INTO jobs (id, kind, status, request, dedupe_key, location_key, location_digest, progress, submitted_by, created_at)
             VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          input.id,
          input.kind,
          JSON.stringify(input.request),
          input.dedupeKey,
          input.location.key,
          input.location.digest,
          JSON.stringify(DEFAULT_PROGRESS),
          input.submittedBy,
          new Date().toISOString(),
        );
        return { outcome: 'created', id: input.id };
      })
      .immediate();
    if (outcome.outcome === 'created') for (const wake of this.wakers) wake();
    return { outcome: outcome.outcome, job: this.mustGet(outcome.id) };
  }

  /**
   * A job as the database holds it now. A status poll reads the same jobs again and again, and a
   * SQLite read (its WAL read lock) is most of such a request's cost, so jobs are kept in memory
   * until the database changes: `data_version` moves when another connection (another process)
   * commits, `total_changes()` when this one writes. Checking both is one statement without a table
   * read; what it returns is never older than a read of the row itself would be.
   */
  async get(id: string): Promise<StoredJob | undefined> {
    const stamp = this.sql<[], { version: number; own: number }>(
      'SELECT data_version AS version, total_changes() AS own FROM pragma_data_version',
    ).get()!;
    const key = `${stamp.version}:${stamp.own}`;
    if (key !== this.readStamp) {
      this.readCache.clear();
      this.readStamp = key;
    }
    const cached = this.readCache.get(id);
    if (cached) return cached;
    const row = this.row(id);
    if (!row) return undefined;
    const job = deepFreeze(this.toJob(row));
    if (this.readCache.size >= READ_CACHE_JOBS) this.readCache.delete(this.readCache.keys().next().value!);
    this.readCache.set(id, job);
    return job;
  }

  async list(query: ListJobsQuery): Promise<JobPage> {
    const before = decodeCursor(query.cursor) ?? Number.MAX_SAFE_INTEGER;
    const status = query.status ?? null;
    const owner = query.submittedBy ?? null;
    const rows = this.sql<
      [string | null, string | null, string | null, string | null, number, number],
      JobRow
    >(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE (? IS NULL OR status = ?) AND (? IS NULL OR submitted_by = ?)
         AND seq < ? ORDER BY seq DESC LIMIT ?`,
    ).all(status, status, owner, owner, before, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      jobs: page.map((row) => this.toJob(row)),
      nextCursor: rows.length > query.limit && last ? encodeCursor(last.seq) : null,
    };
  }

  async result(id: string): Promise<unknown> {
    const row = this.sql<[string], { result: string | null }>('SELECT result FROM jobs WHERE id = ?').get(id);
    return row?.result ? JSON.parse(row.result) : undefined;
  }

  async cancel(id: string): Promise<{ outcome: CancelOutcome; job: StoredJob } | undefined> {
    const outcome = this.db
      .transaction((): CancelOutcome | undefined => {
        const row = this.row(id);
        if (!row) return undefined;
        if (row.status === 'queued') {
          this.sql(
            "UPDATE jobs SET status = 'canceled', cancel_requested = 1, finished_at = ?, progress = ? WHERE id = ?",
          ).run(
            new Date().toISOString(),
            JSON.stringify({ phase: 'canceled', done: 0, total: 0, message: 'canceled while queued' }),
            id,
          );
          return 'canceled';
        }
        if (row.status === 'running') {
          this.sql('UPDATE jobs SET cancel_requested = 1 WHERE id = ?').run(id);
          return 'cancel_requested';
        }
        return 'already_finished';
      })
      .immediate();
    return outcome ? { outcome, job: this.mustGet(id) } : undefined;
  }

  /** Queues again every running job whose lease ran out or whose worker on this host has died. */
  recoverAbandoned(): number {
    const now = Date.now();
    const running = this.sql<
      [],
      {
        id: string;
        attempts: number;
        lease_host: string | null;
        lease_pid: number | null;
        lease_expires_at: number | null;
      }
    >(
      "SELECT id, attempts, lease_host, lease_pid, lease_expires_at FROM jobs WHERE status = 'running'",
    ).all();
    let recovered = 0;
    for (const job of running) {
      const expired = (job.lease_expires_at ?? 0) < now;
      const deadHere =
        job.lease_host === this.host && job.lease_pid !== null && !processIsAlive(job.lease_pid);
      if (!expired && !deadHere) continue;
      const changed = this.sql(
        "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND status = 'running' AND attempts = ?",
      ).run(job.id, job.attempts).changes;
      recovered += changed;
    }
    if (recovered > 0) for (const wake of this.wakers) wake();
    return recovered;
  }

  /** Claims the oldest queued job for `worker` (one transaction: two workers never claim the same one). */
  claimNext(worker: string): StartedJob | undefined {
    const claimed = this.db
      .transaction((): { id: string; attempt: number } | undefined => {
        const next = this.sql<[], { id: string }>(
          "SELECT id FROM jobs WHERE status = 'queued' ORDER BY seq LIMIT 1",
        ).get();
        if (!next) return undefined;
        return this.startAttempt(next.id, worker);
      })
      .immediate();
    return claimed ? { job: this.mustGet(claimed.id), attempt: claimed.attempt } : undefined;
  }

  private startAttempt(id: string, worker: string): { id: string; attempt: number } | undefined {
    const row = this.row(id);
    if (!row || (row.status !== 'queued' && row.status !== 'running')) return undefined;
    const attempt = row.attempts + 1;
    const now = new Date();
    this.sql(
      `UPDATE jobs SET status = 'running', attempts = ?, lease_owner = ?, lease_host = ?, lease_pid = ?,
           lease_expires_at = ?, started_at = COALESCE(started_at, ?) WHERE id = ?`,
    ).run(attempt, worker, this.host, process.pid, now.getTime() + this.leaseMs, now.toISOString(), id);
    this.sql('INSERT INTO executions (job_id, attempt, worker, started_at) VALUES (?, ?, ?, ?)').run(
      id,
      attempt,
      worker,
      now.toISOString(),
    );
    return { id, attempt };
  }

  async progress(id: string, attempt: number, progress: JobProgress): Promise<void> {
    this.sql("UPDATE jobs SET progress = ? WHERE id = ? AND attempts = ? AND status = 'running'").run(
      JSON.stringify(progress),
      id,
      attempt,
    );
  }

  async heartbeat(id: string, attempt: number): Promise<{ cancelRequested: boolean }> {
    this.sql("UPDATE jobs SET lease_expires_at = ? WHERE id = ? AND attempts = ? AND status = 'running'").run(
      Date.now() + this.leaseMs,
      id,
      attempt,
    );
    const row = this.sql<[string], { cancel_requested: number }>(
      'SELECT cancel_requested FROM jobs WHERE id = ?',
    ).get(id);
    return { cancelRequested: row?.cancel_requested === 1 };
  }

  async finish(id: string, attempt: number, outcome: JobOutcome): Promise<boolean> {
    const now = new Date().toISOString();
    return this.db
      .transaction(() => {
        const changed = this.sql(
          `UPDATE jobs SET status = ?, result = ?, error = ?, finished_at = ?, lease_owner = NULL, lease_expires_at = NULL
             WHERE id = ? AND attempts = ? AND status = 'running'`,
        ).run(
          outcome.status,
          outcome.status === 'done' ? JSON.stringify(outcome.result) : null,
          outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
          now,
          id,
          attempt,
        ).changes;
        if (changed === 0) return false;
        this.sql('UPDATE executions SET finished_at = ?, outcome = ? WHERE job_id = ? AND attempt = ?').run(
          now,
          outcome.status,
          id,
          attempt,
        );
        return true;
      })
      .immediate();
  }

  async requeue(id: string, attempt: number): Promise<boolean> {
    const now = new Date().toISOString();
    const requeued = this.db
      .transaction(() => {
        const changed = this.sql(
          "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND attempts = ? AND status = 'running'",
        ).run(id, attempt).changes;
        if (changed > 0)
          this.sql(
            "UPDATE executions SET finished_at = ?, outcome = 'requeued' WHERE job_id = ? AND attempt = ?",
          ).run(now, id, attempt);
        return changed > 0;
      })
      .immediate();
    if (requeued) for (const wake of this.wakers) wake();
    return requeued;
  }

  source(options: { worker: string; concurrency: number }): JobSource {
    return new SqlitePollingSource(
      this,
      options.worker,
      options.concurrency,
      this.pollMs,
      this.leaseMs,
      this.wakers,
    );
  }

  async check(): Promise<void> {
    this.sql('SELECT count(*) AS n FROM jobs').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/**
 * Claims jobs from the table while fewer than `concurrency` run, sleeping `pollMs` when the queue is
 * empty (a local enqueue or requeue wakes it at once); every half lease it queues abandoned jobs again.
 */
class SqlitePollingSource implements JobSource {
  private paused = false;
  private active = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private recoverTimer: NodeJS.Timeout | undefined;
  private readonly wake = () => this.schedule(0);
  private run: ((started: StartedJob) => Promise<unknown>) | undefined;

  constructor(
    private readonly store: SqliteJobStore,
    private readonly worker: string,
    private readonly concurrency: number,
    private readonly pollMs: number,
    private readonly leaseMs: number,
    private readonly wakers: Set<() => void>,
  ) {}

  start(run: (started: StartedJob) => Promise<'finished' | 'requeued'>): void {
    this.run = run;
    this.wakers.add(this.wake);
    const recover = () => {
      try {
        this.store.recoverAbandoned();
      } catch {
        // Locked by another process past busy_timeout: the next round recovers.
      }
    };
    recover();
    this.recoverTimer = setInterval(recover, Math.max(50, this.leaseMs / 2));
    this.recoverTimer.unref();
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.paused) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fill(), delay);
  }

  private fill(): void {
    this.timer = undefined;
    while (!this.paused && this.active < this.concurrency) {
      let claimed: StartedJob | undefined;
      try {
        claimed = this.store.claimNext(this.worker);
      } catch {
        // The database stayed locked past busy_timeout (another process writing): look again later.
        break;
      }
      if (!claimed) break;
      this.active += 1;
      const delivery = Promise.resolve(this.run?.(claimed))
        .catch(() => {})
        .finally(() => {
          this.active -= 1;
          this.inFlight.delete(delivery);
          this.schedule(0);
        });
      this.inFlight.add(delivery);
    }
    if (!this.paused && this.active < this.concurrency) this.schedule(this.pollMs);
  }

  async pause(): Promise<void> {
    this.paused = true;
    this.wakers.delete(this.wake);
    if (this.timer) clearTimeout(this.timer);
    if (this.recoverTimer) clearInterval(this.recoverTimer);
  }

  async close(): Promise<void> {
    await this.pause();
    await Promise.allSettled([...this.inFlight]);
  }
}
