import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { startJobRunner } from './job-runner';
import type { JobSource, JobStore, StartedJob } from './job-store';
import { SqliteJobStore } from './sqlite-job-store';
import { enqueueInput } from './testing';

/**
 * A source whose delivery is in flight when the runner pauses it, as BullMQ's worker can be: the attempt
 * has started in the store (the job reads `running`) but reaches the runner only after the pause.
 */
class InFlightSource implements JobSource {
  private delivery: Promise<unknown> = Promise.resolve();
  private run: ((started: StartedJob) => Promise<'finished' | 'requeued'>) | undefined;
  private claimed: StartedJob | undefined;

  constructor(
    private readonly store: SqliteJobStore,
    private readonly worker: string,
  ) {}

  start(run: (started: StartedJob) => Promise<'finished' | 'requeued'>): void {
    this.run = run;
    this.claimed = this.store.claimNext(this.worker);
  }

  async pause(): Promise<void> {
    const claimed = this.claimed;
    this.claimed = undefined;
    if (claimed) this.delivery = Promise.resolve().then(() => this.run?.(claimed));
  }

  async close(): Promise<void> {
    await this.delivery;
  }
}

describe('a draining job runner', () => {
  it('gives back a job delivered after the drain began, without running it', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-jobs-runner-');
    const store = new SqliteJobStore(join(dir, 'jobs.sqlite'));
    try {
      const { job } = await store.enqueue(enqueueInput());
      const inFlight: JobStore = Object.assign(Object.create(store) as SqliteJobStore, {
        source: () => new InFlightSource(store, 'first'),
      });
      let handled = 0;
      const runner = startJobRunner({
        store: inFlight,
        concurrency: 1,
        worker: 'first',
        handlers: {
          evaluation: async () => {
            handled += 1;
            return 'ran after the drain began';
          },
          rubric_evaluation: async () => undefined,
        },
      });
      expect((await store.get(job.id))?.status).toBe('running');

      const drained = await runner.drain(50);
      expect(drained).toEqual({ finished: 0, requeued: [job.id] });
      expect(handled).toBe(0);
      const queued = await store.get(job.id);
      expect(queued).toMatchObject({ status: 'queued', attempts: 1 });
      expect(queued?.executions.map((e) => [e.worker, e.outcome])).toEqual([['first', 'requeued']]);
      expect(store.claimNext('second')?.attempt).toBe(2);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
