import { ApiDataLayout } from './api-data-layout';
import type { JobStore } from './job-store';
import { RedisJobStore, type RedisJobStoreOptions } from './redis-job-store';
import { SqliteJobStore, type SqliteJobStoreOptions } from './sqlite-job-store';

export interface OpenJobStoreOptions {
  dataDir: string;
  /** `redis://HOST:PORT` puts jobs on BullMQ; unset: SQLite at `<data>/api/jobs.sqlite`. */
  queue?: string;
  /**
   * How long a job stays with a worker that stopped renewing it (killed, machine lost) before another
   * worker takes it: the SQLite lease, BullMQ's lock duration. Default 30 s.
   */
  leaseMs?: number;
  sqlite?: SqliteJobStoreOptions;
  redis?: RedisJobStoreOptions;
}

/** The job store a process uses: the embedded SQLite store by default, BullMQ on Redis with `queue`. */
export function openJobStore(options: OpenJobStoreOptions): JobStore {
  const lease = options.leaseMs;
  if (options.queue)
    return new RedisJobStore(options.queue, {
      ...(lease ? { lockDurationMs: lease } : {}),
      ...options.redis,
    });
  return new SqliteJobStore(new ApiDataLayout(options.dataDir).databaseFile(), {
    ...(lease ? { leaseMs: lease } : {}),
    ...options.sqlite,
  });
}
