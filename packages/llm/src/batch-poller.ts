import type { BatchContext } from './batch-context';
import { BatchCallError, retryBatchCall } from './batch-retry';
import { unanswered } from './batch-state-machine';
import { sleepOn } from './clock';
import type { BatchProgress } from './provider-adapter';
import type { BatchState } from './schemas/batch-state';

/** Follows batches at the provider: checks a resumed record, polls, cancels. */
export class BatchPoller {
  constructor(
    private readonly context: BatchContext,
    private readonly pollIntervalMs: number,
  ) {}

  /** A batch found in a state file (another process's, or an earlier run's): followed once checked. */
  async resume(localId: string): Promise<void> {
    await this.check(localId).catch((error) => this.lost(localId, error));
  }

  async poll(localId: string, batchId: string): Promise<void> {
    const { store, backend, retry, scheduler, clock } = this.context;
    try {
      const record = store.get(localId);
      if (!record) throw new Error(`the state of batch ${batchId} is gone`);
      let progress: BatchProgress;
      try {
        progress = await retryBatchCall(() => backend.progress(batchId), retry);
      } catch (error) {
        if (!(error instanceof BatchCallError) || error.failure.retryable)
          progress = { state: 'running', providerStatus: record.providerStatus ?? 'unknown' };
        else return await this.gone(record, batchId, error);
      }
      if (progress.providerStatus !== record.providerStatus) {
        record.providerStatus = progress.providerStatus;
        await store.write(record);
      }
      scheduler.dispatch({ type: 'polled', localId, progress, at: clock.now() });
    } catch (error) {
      this.lost(localId, error);
    }
  }

  cancel(batchId: string): void {
    const { backend, retry } = this.context;
    void retryBatchCall(() => backend.cancel(batchId), retry).catch(() => undefined);
  }

  private async check(localId: string): Promise<void> {
    const { store, scheduler, clock } = this.context;
    let record = store.get(localId);
    if (!record) return scheduler.dispatch({ type: 'batch-released', localId, next: 'reroute' });
    // A submission another live process is making: wait for it to name its batch (or fail).
    while (record.status === 'preparing' && store.ownedByLiveProcess(record)) {
      await sleepOn(clock, this.pollIntervalMs);
      record = (await store.reread(record.id)) ?? record;
    }
    if (record.status === 'failed') {
      const why = unanswered('batch_submit', 'was in a submission that failed', true);
      return scheduler.dispatch({ type: 'batch-lost', localId, why });
    }
    if (record.status === 'preparing') record = await this.recover(record);
    if (record.status === 'failed' || record.status === 'collected')
      // Failed before it reached the provider: batched again, no round spent. Collected by another
      // process while this one waited: its stored results answer these.
      return scheduler.dispatch({
        type: 'batch-released',
        localId,
        next: record.status === 'failed' ? 'requeue' : 'reroute',
      });
    const batchId = record.batchId as string;
    this.context.emit({ type: 'resumed', localId, batchId, requests: record.requests.length });
    const submittedAt = Date.parse(record.submittedAt ?? record.createdAt);
    scheduler.dispatch({ type: 'adopt', localId, batchId, submittedAt });
  }

  /**
   * A record left in `preparing` by a process that died: the provider may have created the batch
   * after all. Adopts it when found, else marks the record failed. Under the lock, so when two
   * processes find the same record only the first decides.
   */
  private recover(initial: BatchState): Promise<BatchState> {
    const { store, retry, clock } = this.context;
    return store.withLock(async () => {
      await store.scan();
      const current = (await store.reread(initial.id)) ?? initial;
      if (current.status !== 'preparing') return current;
      const found =
        current.batchId ??
        (await retryBatchCall(
          () => findOrphan(this.context, current, Date.parse(current.createdAt)),
          retry,
        ).catch(() => undefined));
      if (found) {
        current.batchId = found;
        current.status = 'submitted';
        current.submittedAt ??= new Date(clock.now()).toISOString();
      } else {
        current.status = 'failed';
        current.error = 'the submission was interrupted before the provider accepted it';
      }
      await store.write(current);
      return current;
    });
  }

  /** The provider does not know the batch (404) or refuses to show it: nothing to wait for. */
  private async gone(record: BatchState, batchId: string, error: BatchCallError): Promise<void> {
    const reason = this.context.online.redact(error.failure.reason);
    record.status = 'failed';
    record.error = `status check failed: ${reason}`;
    await this.context.store.write(record);
    const detail = `was in batch ${batchId}, which the provider no longer shows (${reason})`;
    const why = unanswered(error.failure.code, detail, true);
    this.context.scheduler.dispatch({ type: 'batch-lost', localId: record.id, why });
  }

  private lost(localId: string, error: unknown): void {
    const detail = `could not be followed (${this.context.online.redact((error as Error).message)})`;
    this.context.scheduler.dispatch({
      type: 'batch-lost',
      localId,
      why: unanswered('batch_poll', detail, false),
    });
  }
}

/** A batch the provider made for this record although its create call failed or its answer was lost. */
export function findOrphan(
  context: BatchContext,
  record: BatchState,
  since: number,
): Promise<string | undefined> {
  return context.backend.findOrphan({
    localId: record.id,
    since,
    requestCount: record.requests.length,
    ...(record.inputFileId ? { inputFileId: record.inputFileId } : {}),
    known: context.store.knownBatchIds(),
  });
}
