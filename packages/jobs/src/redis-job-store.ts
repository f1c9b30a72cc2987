import { ConfigError, InternalError, isXsbError, XsbError } from '@xsb/core';
import { type Job, Queue, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
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
import type { JobProgress, JobStatus } from './schemas/api-job';

/** Lua helpers shared by the scripts: status moves keep the per-status indexes in step. */
const LUA_HELPERS = `
local function move(p, key, id, from, to)
  local seq = redis.call('HGET', key, 'seq')
  redis.call('ZREM', p .. ':status:' .. from, id)
  redis.call('ZADD', p .. ':status:' .. to, seq, id)
  redis.call('HSET', key, 'status', to)
end
local function release(p, key, id)
  local dedupe = p .. ':dedupe:' .. redis.call('HGET', key, 'dedupe_key')
  if redis.call('GET', dedupe) == id then redis.call('DEL', dedupe) end
  local loc = p .. ':loc:' .. redis.call('HGET', key, 'location_key')
  redis.call('SREM', loc .. ':jobs', id)
  if redis.call('SCARD', loc .. ':jobs') == 0 then redis.call('DEL', loc .. ':digest') end
end
local function close_execution(key, attempt, now, outcome)
  local entry = redis.call('LINDEX', key .. ':exec', attempt - 1)
  if not entry then return end
  local execution = cjson.decode(entry)
  execution.finished_at = now
  execution.outcome = outcome
  redis.call('LSET', key .. ':exec', attempt - 1, cjson.encode(execution))
end
`;

const ENQUEUE = `
local p, id, dedupe, location, digest = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local clock = redis.call('TIME')
if clock[1] * 1000 + math.floor(clock[2] / 1000) > tonumber(ARGV[11]) then return {'expired', ''} end
local existing = redis.call('GET', p .. ':dedupe:' .. dedupe)
if existing then return {'duplicate', existing} end
local loc = p .. ':loc:' .. location
if redis.call('SCARD', loc .. ':jobs') > 0 and redis.call('GET', loc .. ':digest') ~= digest then
  return {'location_busy', redis.call('SRANDMEMBER', loc .. ':jobs')}
end
local seq = redis.call('INCR', p .. ':seq')
local key = p .. ':job:' .. id
redis.call('HSET', key, 'id', id, 'seq', seq, 'kind', ARGV[6], 'status', 'queued', 'request', ARGV[7],
  'progress', ARGV[8], 'submitted_by', ARGV[9], 'created_at', ARGV[10], 'attempts', 0,
  'cancel_requested', 0, 'dedupe_key', dedupe, 'location_key', location, 'accept_by', ARGV[11])
redis.call('ZADD', p .. ':jobs', seq, id)
if ARGV[9] ~= '' then redis.call('ZADD', p .. ':owner:' .. ARGV[9], seq, id) end
redis.call('ZADD', p .. ':status:queued', seq, id)
redis.call('SET', p .. ':dedupe:' .. dedupe, id)
redis.call('SET', loc .. ':digest', digest)
redis.call('SADD', loc .. ':jobs', id)
return {'created', id}
`;

const START = `
local p, id, worker, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = p .. ':job:' .. id
local status = redis.call('HGET', key, 'status')
if status ~= 'queued' and status ~= 'running' then return false end
local attempt = redis.call('HINCRBY', key, 'attempts', 1)
if status == 'queued' then move(p, key, id, 'queued', 'running') end
if redis.call('HEXISTS', key, 'started_at') == 0 then redis.call('HSET', key, 'started_at', now) end
redis.call('RPUSH', key .. ':exec', cjson.encode({attempt = attempt, worker = worker, started_at = now}))
return attempt
`;

const PROGRESS = `
local key = ARGV[1] .. ':job:' .. ARGV[2]
if redis.call('HGET', key, 'status') == 'running' and redis.call('HGET', key, 'attempts') == ARGV[3] then
  redis.call('HSET', key, 'progress', ARGV[4])
end
return redis.call('HGET', key, 'cancel_requested')
`;

const FINISH = `
local p, id, attempt, status, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local key = p .. ':job:' .. id
if redis.call('HGET', key, 'status') ~= 'running' or redis.call('HGET', key, 'attempts') ~= attempt then return 0 end
redis.call('HSET', key, 'finished_at', now)
if status == 'done' then redis.call('HSET', key, 'result', ARGV[6]) end
if status == 'failed' then redis.call('HSET', key, 'error', ARGV[6]) end
move(p, key, id, 'running', status)
release(p, key, id)
close_execution(key, tonumber(attempt), now, status)
return 1
`;

const REQUEUE = `
local p, id, attempt, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = p .. ':job:' .. id
if redis.call('HGET', key, 'status') ~= 'running' or redis.call('HGET', key, 'attempts') ~= attempt then return 0 end
move(p, key, id, 'running', 'queued')
close_execution(key, tonumber(attempt), now, 'requeued')
return 1
`;

const CANCEL = `
local p, id, now, progress = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = p .. ':job:' .. id
local status = redis.call('HGET', key, 'status')
if not status then return false end
if status == 'queued' then
  redis.call('HSET', key, 'cancel_requested', 1, 'finished_at', now, 'progress', progress)
  move(p, key, id, 'queued', 'canceled')
  release(p, key, id)
  return 'canceled'
end
if status == 'running' then
  redis.call('HSET', key, 'cancel_requested', 1)
  return 'cancel_requested'
end
return 'already_finished'
`;

type ScriptName = 'xsbEnqueue' | 'xsbStart' | 'xsbProgress' | 'xsbFinish' | 'xsbRequeue' | 'xsbCancel';
type ScriptedRedis = Redis & Record<ScriptName, (...args: Array<string | number>) => Promise<unknown>>;

export interface RedisJobStoreOptions {
  /** Key prefix of the job records (default `xsb`); BullMQ's keys are under `<prefix>:bull`. */
  prefix?: string;
  /** How long a BullMQ worker holds a job without renewing its lock (default 30 s). */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock ran out (default a quarter of the lock, at least 250 ms). */
  stalledIntervalMs?: number;
}

const QUEUE_NAME = 'xsb-jobs';

/** The progress of a record withdrawn because its request failed before the job was delivered. */
const WITHDRAWN = JSON.stringify({
  phase: 'canceled',
  done: 0,
  total: 0,
  message: 'withdrawn: the queue failed while the job was being submitted',
});

function parseRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`queue ${JSON.stringify(url)} is not a URL (expected redis://HOST:PORT)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new ConfigError(`queue ${JSON.stringify(url)}: only redis:// and rediss:// queues are supported`);
  return url;
}

/**
 * The job store of several machines: job records in Redis hashes (updated by Lua scripts, so every
 * transition is atomic and fenced by the attempt number) and delivery through BullMQ, whose worker
 * locks hand a job whose worker died (SIGKILL, lost machine) to another worker once the lock runs out.
 * One Redis (not a cluster: the scripts touch keys they build) and one shared data folder serve any
 * number of `xsb serve` and `xsb worker --queue …` processes.
 */
/** How long a request's enqueue may take: past it the record is refused by Redis itself, never made late. */
const ENQUEUE_DEADLINE_MS = 4000;
/** A request-side command not answered within this is a queue outage (503), not a hung request. */
const REQUEST_COMMAND_TIMEOUT_MS = 2500;

/** The queue does not answer: requests get 503 with Retry-After, and nothing is accepted late. */
export function queueUnavailable(cause: unknown): XsbError {
  return new XsbError('internal', 'queue_unavailable', 'the job queue (Redis) does not answer', {
    cause,
    retryable: true,
  });
}

function withScripts(redis: Redis): ScriptedRedis {
  const scripts: Record<ScriptName, string> = {
    xsbEnqueue: ENQUEUE,
    xsbStart: START,
    xsbProgress: PROGRESS,
    xsbFinish: FINISH,
    xsbRequeue: REQUEUE,
    xsbCancel: CANCEL,
  };
  for (const [name, body] of Object.entries(scripts)) {
    redis.defineCommand(name, { numberOfKeys: 0, lua: `${LUA_HELPERS}\n${body}` });
  }
  // Connection errors surface through the commands that fail (and readiness); keep them off stderr.
  redis.on('error', () => {});
  return redis as ScriptedRedis;
}

export class RedisJobStore implements JobStore {
  readonly backend = 'redis' as const;
  /** The workers' connection: commands wait through a Redis restart (a job's outcome is not dropped). */
  private readonly redis: ScriptedRedis;
  /**
   * The requests' connection: no offline queue, no resend, a command timeout — while Redis is away a
   * request fails at once (503) instead of hanging, and no command of it runs when Redis returns.
   */
  private readonly requests: ScriptedRedis;
  private readonly queue: Queue;
  readonly prefix: string;

  constructor(
    readonly url: string,
    private readonly options: RedisJobStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'xsb';
    this.redis = withScripts(
      new Redis(parseRedisUrl(url), { maxRetriesPerRequest: null, lazyConnect: false }),
    );
    this.requests = withScripts(
      new Redis(parseRedisUrl(url), {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: REQUEST_COMMAND_TIMEOUT_MS,
        lazyConnect: false,
      }),
    );
    this.requests.once('ready', () => {
      this.wasReady = true;
    });
    this.queue = new Queue(QUEUE_NAME, { connection: this.requests, prefix: `${this.prefix}:bull` });
    this.queue.on('error', () => {});
  }

  /** The request connection has been ready once: from then on, a request never waits for it. */
  private wasReady = false;

  /**
   * A request-side operation: any failure to reach Redis is `queue_unavailable`. Until the connection has
   * been ready once (a store just opened) it waits for it, up to 2 s; after that nothing waits.
   */
  private async request<T>(work: () => Promise<T>): Promise<T> {
    try {
      if (!this.wasReady) await this.connected(2000);
      return await work();
    } catch (error) {
      throw isXsbError(error) ? error : queueUnavailable(error);
    }
  }

  private key(id: string): string {
    return `${this.prefix}:job:${id}`;
  }

  private async load(ids: string[], redis: Redis = this.redis): Promise<StoredJob[]> {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) {
      pipeline.hgetall(this.key(id));
      pipeline.lrange(`${this.key(id)}:exec`, 0, -1);
    }
    const replies = (await pipeline.exec()) ?? [];
    // A pipeline reports a failed command in its reply rather than rejecting: a lost connection is an
    // error, never a job that seems not to exist.
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
    const jobs: StoredJob[] = [];
    for (let index = 0; index < ids.length; index++) {
      const hash = replies[index * 2]?.[1] as Record<string, string> | undefined;
      const executions = (replies[index * 2 + 1]?.[1] as string[] | undefined) ?? [];
      if (!hash?.id) continue;
      jobs.push({
        id: hash.id,
        kind: hash.kind as StoredJob['kind'],
        status: hash.status as JobStatus,
        request: JSON.parse(hash.request ?? '{}'),
        progress: JSON.parse(hash.progress ?? JSON.stringify(DEFAULT_PROGRESS)),
        error: hash.error ? JSON.parse(hash.error) : null,
        attempts: Number(hash.attempts ?? 0),
        submitted_by: hash.submitted_by ? hash.submitted_by : null,
        created_at: hash.created_at!,
        started_at: hash.started_at ?? null,
        finished_at: hash.finished_at ?? null,
        cancel_requested: hash.cancel_requested === '1',
        executions: executions.map((entry) => {
          const parsed = JSON.parse(entry) as Record<string, unknown>;
          return {
            attempt: Number(parsed.attempt),
            worker: String(parsed.worker),
            started_at: String(parsed.started_at),
            finished_at: typeof parsed.finished_at === 'string' ? parsed.finished_at : null,
            outcome: (typeof parsed.outcome === 'string'
              ? parsed.outcome
              : null) as StoredJob['executions'][number]['outcome'],
          };
        }),
      });
    }
    return jobs;
  }

  private async mustLoad(id: string, redis: Redis = this.redis): Promise<StoredJob> {
    const [job] = await this.load([id], redis);
    if (!job) throw new InternalError(`job ${id} vanished from the Redis store`);
    return job;
  }

  async enqueue(input: EnqueueInput): Promise<EnqueueOutcome> {
    return this.request(() => this.enqueueNow(input));
  }

  private async enqueueNow(input: EnqueueInput): Promise<EnqueueOutcome> {
    const acceptBy = Date.now() + ENQUEUE_DEADLINE_MS;
    const [outcome, id] = (await this.requests.xsbEnqueue(
      this.prefix,
      input.id,
      input.dedupeKey,
      input.location.key,
      input.location.digest,
      input.kind,
      JSON.stringify(input.request),
      JSON.stringify(DEFAULT_PROGRESS),
      input.submittedBy ?? '',
      new Date().toISOString(),
      acceptBy,
    )) as [EnqueueOutcome['outcome'] | 'expired', string];
    if (outcome === 'expired')
      throw queueUnavailable(new Error('the enqueue reached Redis past its deadline'));
    if (outcome === 'created') {
      try {
        await this.deliver(id);
      } catch (error) {
        // Not delivered: the record is withdrawn where possible, and `reconcile` never delivers a
        // record that missed its deadline, so a request answered 503 does not run later.
        await this.requests.xsbCancel(this.prefix, id, new Date().toISOString(), WITHDRAWN).catch(() => {});
        throw error;
      }
      await this.requests.hset(this.key(id), 'delivered', '1').catch(() => {});
    }
    return { outcome, job: await this.mustLoad(id, this.requests) };
  }

  /** Hands a queued record to BullMQ; adding an id BullMQ already holds is a no-op. */
  private async deliver(id: string): Promise<void> {
    await this.queue.add('job', { id }, { jobId: id, removeOnComplete: true, removeOnFail: true });
  }

  async get(id: string): Promise<StoredJob | undefined> {
    return this.request(async () => (await this.load([id], this.requests))[0]);
  }

  async list(query: ListJobsQuery): Promise<JobPage> {
    return this.request(() => this.listNow(query));
  }

  private async listNow(query: ListJobsQuery): Promise<JobPage> {
    if (query.submittedBy !== undefined) return this.listOwned(query, query.submittedBy);
    const before = decodeCursor(query.cursor);
    const index = query.status ? `${this.prefix}:status:${query.status}` : `${this.prefix}:jobs`;
    const entries = await this.newestFirst(index, before, 0, query.limit + 1);
    const page = entries.slice(0, query.limit);
    const last = page.at(-1);
    return {
      jobs: await this.load(
        page.map((entry) => entry.id),
        this.requests,
      ),
      nextCursor: entries.length > query.limit && last ? encodeCursor(last.seq) : null,
    };
  }

  /** Entries of a sorted index below `before`, newest first. */
  private async newestFirst(
    index: string,
    before: number | undefined,
    offset: number,
    count: number,
  ): Promise<Array<{ id: string; seq: number }>> {
    const max = before === undefined ? '+inf' : `(${before}`;
    const reply = await this.requests.zrevrangebyscore(
      index,
      max,
      '-inf',
      'WITHSCORES',
      'LIMIT',
      offset,
      count,
    );
    const entries: Array<{ id: string; seq: number }> = [];
    for (let i = 0; i < reply.length; i += 2) entries.push({ id: reply[i]!, seq: Number(reply[i + 1]) });
    return entries;
  }

  /** One owner's jobs (its own index), filtered by status as they are read. */
  private async listOwned(query: ListJobsQuery, owner: string): Promise<JobPage> {
    const before = decodeCursor(query.cursor);
    const index = `${this.prefix}:owner:${owner}`;
    const found: StoredJob[] = [];
    const chunk = Math.max(50, (query.limit + 1) * 4);
    for (let offset = 0; found.length <= query.limit; offset += chunk) {
      const entries = await this.newestFirst(index, before, offset, chunk);
      const jobs = await this.load(
        entries.map((entry) => entry.id),
        this.requests,
      );
      found.push(...jobs.filter((job) => !query.status || job.status === query.status));
      if (entries.length < chunk) break;
    }
    const page = found.slice(0, query.limit);
    const last = page.at(-1);
    const seqOf = async (id: string) => Number(await this.requests.hget(this.key(id), 'seq'));
    return {
      jobs: page,
      nextCursor: found.length > query.limit && last ? encodeCursor(await seqOf(last.id)) : null,
    };
  }

  async result(id: string): Promise<unknown> {
    const value = await this.request(() => this.requests.hget(this.key(id), 'result'));
    return value ? JSON.parse(value) : undefined;
  }

  async cancel(id: string): Promise<{ outcome: CancelOutcome; job: StoredJob } | undefined> {
    return this.request(() => this.cancelNow(id));
  }

  private async cancelNow(id: string): Promise<{ outcome: CancelOutcome; job: StoredJob } | undefined> {
    const outcome = (await this.requests.xsbCancel(
      this.prefix,
      id,
      new Date().toISOString(),
      JSON.stringify({ phase: 'canceled', done: 0, total: 0, message: 'canceled while queued' }),
    )) as CancelOutcome | null;
    return outcome ? { outcome, job: await this.mustLoad(id, this.requests) } : undefined;
  }

  /** Starts the next attempt; undefined when the job is finished or canceled (a late redelivery). */
  async startAttempt(id: string, worker: string): Promise<StartedJob | undefined> {
    const attempt = (await this.redis.xsbStart(this.prefix, id, worker, new Date().toISOString())) as
      | number
      | null;
    return attempt === null ? undefined : { job: await this.mustLoad(id), attempt };
  }

  async progress(id: string, attempt: number, progress: JobProgress): Promise<void> {
    await this.redis.xsbProgress(this.prefix, id, String(attempt), JSON.stringify(progress));
  }

  async heartbeat(id: string, _attempt: number): Promise<{ cancelRequested: boolean }> {
    return { cancelRequested: (await this.redis.hget(this.key(id), 'cancel_requested')) === '1' };
  }

  async finish(id: string, attempt: number, outcome: JobOutcome): Promise<boolean> {
    const payload =
      outcome.status === 'done'
        ? JSON.stringify(outcome.result)
        : outcome.status === 'failed'
          ? JSON.stringify(outcome.error)
          : '';
    const changed = await this.redis.xsbFinish(
      this.prefix,
      id,
      String(attempt),
      outcome.status,
      new Date().toISOString(),
      payload,
    );
    return changed === 1;
  }

  async requeue(id: string, attempt: number): Promise<boolean> {
    return (await this.redis.xsbRequeue(this.prefix, id, String(attempt), new Date().toISOString())) === 1;
  }

  /**
   * Queued records BullMQ does not hold (an enqueue interrupted between the record and the delivery)
   * are delivered again; running records without a BullMQ job (given up after too many stalls) fail.
   */
  async reconcile(): Promise<void> {
    for (const id of await this.redis.zrange(`${this.prefix}:status:queued`, '0', '-1')) {
      if (await this.queue.getJob(id)) continue;
      const [delivered, acceptBy] = await this.redis.hmget(this.key(id), 'delivered', 'accept_by');
      if (delivered === '1' || Number(acceptBy ?? Number.POSITIVE_INFINITY) > Date.now())
        await this.deliver(id);
      else await this.redis.xsbCancel(this.prefix, id, new Date().toISOString(), WITHDRAWN);
    }
    for (const id of await this.redis.zrange(`${this.prefix}:status:running`, '0', '-1')) {
      if (await this.queue.getJob(id)) continue;
      const attempts = await this.redis.hget(this.key(id), 'attempts');
      await this.finish(id, Number(attempts), {
        status: 'failed',
        error: { code: 'worker_lost', message: 'the job was abandoned by its workers too often' },
      });
    }
  }

  source(options: { worker: string; concurrency: number }): JobSource {
    return new BullmqSource(this, options, this.redis, this.options);
  }

  /** Readiness: Redis answers on the request connection (a store just opened waits up to 2 s for it). */
  async check(): Promise<void> {
    await this.request(() => this.requests.ping());
  }

  private connected(ms: number): Promise<void> {
    if (this.requests.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.requests.off('ready', ready);
        reject(new Error(`not connected to Redis (${this.requests.status})`));
      }, ms);
      const ready = () => {
        clearTimeout(timer);
        resolve();
      };
      this.requests.once('ready', ready);
    });
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => {});
    await this.requests.quit().catch(() => this.requests.disconnect());
    await this.redis.quit().catch(() => {});
  }
}

/** A BullMQ worker that starts each delivered job's attempt and gives drained jobs back to the queue. */
class BullmqSource implements JobSource {
  private worker: Worker | undefined;
  private connection: Redis | undefined;

  constructor(
    private readonly store: RedisJobStore,
    private readonly options: { worker: string; concurrency: number },
    private readonly redis: Redis,
    private readonly timing: RedisJobStoreOptions,
  ) {}

  start(run: (started: StartedJob) => Promise<'finished' | 'requeued'>): void {
    const lockDuration = this.timing.lockDurationMs ?? 30_000;
    this.connection = this.redis.duplicate({ maxRetriesPerRequest: null });
    this.connection.on('error', () => {});
    this.worker = new Worker(
      QUEUE_NAME,
      async (job: Job<{ id: string }>, token?: string) => {
        const started = await this.store.startAttempt(job.data.id, this.options.worker);
        if (!started) return;
        if ((await run(started)) === 'requeued') {
          await job.moveToWait(token);
          throw new WaitingError();
        }
      },
      {
        connection: this.connection,
        prefix: `${this.store.prefix}:bull`,
        concurrency: this.options.concurrency,
        lockDuration,
        // A quarter of the lease: a job whose worker died is back on the queue within about 1.25 leases.
        stalledInterval: this.timing.stalledIntervalMs ?? Math.max(250, Math.floor(lockDuration / 4)),
        maxStalledCount: 10,
        name: this.options.worker,
      },
    );
    this.worker.on('error', () => {});
    this.worker.on('failed', (job, error) => {
      if (!job || error instanceof WaitingError) return;
      // Only BullMQ itself fails a job (our processor never throws otherwise): too many stalls.
      void this.store.reconcile().catch(() => {});
    });
    void this.store.reconcile().catch(() => {});
  }

  async pause(): Promise<void> {
    await this.worker?.pause(true);
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.connection?.quit().catch(() => {});
  }
}
