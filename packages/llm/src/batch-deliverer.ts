import { mapWithConcurrency } from '@xsb/core';
import { type BatchContext, type Entry, memberEntry } from './batch-context';
import { BatchCallError, retryBatchCall } from './batch-retry';
import { type NoAnswer, unanswered } from './batch-state-machine';
import { keepRecent } from './batch-state-store';
import type { CompletionResult } from './completion-types';
import type { BatchProgress, EntryOutcome } from './provider-adapter';
import type { BatchState } from './schemas/batch-state';

/** Cache writes and ledger lines of one batch's results run this many at a time. */
const DELIVERY_CONCURRENCY = 32;
/** Results of collected batches read again (a resumed run without the disk cache) kept in memory. */
const COLLECTED_RESULTS_KEPT = 4;

type Counts = NonNullable<BatchState['counts']>;

interface Collection {
  answered: Array<[string, CompletionResult]>;
  later: Array<[string, NoAnswer]>;
  counts: Counts;
  missing: string[];
}

/** Hands out batch results: cache and ledger first (once per answer), then the callers. */
export class BatchDeliverer {
  private readonly collectedResults = new Map<string, Promise<Map<string, EntryOutcome>>>();

  constructor(private readonly context: BatchContext) {}

  async collect(localId: string, batchId: string, progress: BatchProgress): Promise<void> {
    const { scheduler, store, online } = this.context;
    const record = store.get(localId);
    const found: Collection = {
      answered: [],
      later: [],
      counts: { succeeded: 0, errored: 0, expired: 0, canceled: 0, absent: 0 },
      missing: [],
    };
    try {
      if (!record) throw new Error(`the state of batch ${batchId} is gone`);
      await store.withLock(() => this.store(record, batchId, progress, found));
    } catch (error) {
      // The batch ended but its results could not be read: the record stays `submitted`, so a
      // later run collects them; resubmitting now would pay for these requests twice.
      const reason = error instanceof BatchCallError ? error.failure.reason : (error as Error).message;
      for (const [id, result] of found.answered) scheduler.dispatch({ type: 'answer', id, result });
      const detail = `has results in batch ${batchId} that could not be read (${online.redact(reason)}); run again to collect them`;
      scheduler.dispatch({ type: 'batch-lost', localId, why: unanswered('batch_results', detail, false) });
      return;
    }
    const { succeeded } = found.counts;
    this.context.emit({ type: 'collected', localId, batchId, succeeded, missing: found.missing.length });
    // Callers hear of their answers only once cache, ledger and state file hold them.
    for (const [id, result] of found.answered) scheduler.dispatch({ type: 'answer', id, result });
    for (const [id, why] of found.later)
      if (memberEntry(this.context, id, localId)) scheduler.dispatch({ type: 'no-answer', id, why, batchId });
    scheduler.dispatch({ type: 'collected', localId });
  }

  /** Under the lock: cache and ledger for each answer, then the record, collected. */
  private async store(
    record: BatchState,
    batchId: string,
    progress: BatchProgress,
    found: Collection,
  ): Promise<void> {
    const { store, backend, retry } = this.context;
    const onDisk = (await store.reread(record.id)) ?? record;
    // Another process on this run stored these results already: hand them out, do not bill again.
    const billed = onDisk.status !== 'collected';
    const outcomes =
      progress.state === 'failed'
        ? new Map<string, EntryOutcome>()
        : await retryBatchCall(() => backend.results(batchId, record.model), retry);
    const submittedAt = Date.parse(record.submittedAt ?? record.createdAt);
    await mapWithConcurrency(record.requests, DELIVERY_CONCURRENCY, async (request) => {
      const outcome = outcomes.get(request.customId);
      const entry = memberEntry(this.context, request.customId, record.id);
      if (outcome?.kind === 'succeeded') {
        found.counts.succeeded += 1;
        const result = await this.deliver(entry, request, outcome, { batchId, billed, submittedAt });
        if (entry) found.answered.push([entry.customId, result]);
        return;
      }
      found.missing.push(request.customId);
      if (outcome === undefined) found.counts.absent += 1;
      else found.counts[outcome.kind] += 1;
      if (entry) found.later.push([entry.customId, noAnswerOf(outcome, progress, batchId)]);
    });
    record.status = 'collected';
    record.collectedAt ??= new Date(this.context.clock.now()).toISOString();
    record.providerStatus = progress.providerStatus;
    record.missing = found.missing.sort();
    record.counts = found.counts;
    if (progress.state === 'failed') record.error = progress.reason;
    if (billed) await store.write(record);
  }

  private deliver(
    entry: Entry | undefined,
    request: BatchState['requests'][number],
    outcome: Extract<EntryOutcome, { kind: 'succeeded' }>,
    batch: { batchId: string; billed: boolean; submittedAt: number },
  ): Promise<CompletionResult> {
    const { online, clock, scheduler } = this.context;
    const started = entry?.waiters[0]?.started ?? performance.now() - (clock.now() - batch.submittedAt);
    const rounds = entry ? (scheduler.request(entry.customId)?.rounds ?? 1) : 1;
    return online.deliver(request.key, outcome.answer, {
      stage: request.stage,
      started,
      retries: Math.max(0, rounds - 1),
      batchId: batch.batchId,
      billed: batch.billed,
      ...(entry ? { estimatedInputTokens: entry.estimatedInputTokens } : {}),
    });
  }

  /** A collected batch of this run that answered the request and has not failed to give its answer. */
  async answeredRecordFor(entry: Entry): Promise<BatchState | undefined> {
    if (this.context.online.options.refresh) return undefined;
    const record = await this.context.store.answeredRecordWith(entry.customId);
    return record && record.id !== entry.unreadableFrom ? record : undefined;
  }

  /**
   * A request a collected batch of this run answered (no disk cache entry): its result is read again
   * and handed out unbilled; false when it could not be read (the request is then batched again).
   */
  async answerFromCollected(entry: Entry, record: BatchState): Promise<boolean> {
    const batchId = record.batchId;
    if (!batchId) return false;
    const outcome = await this.resultsOf(record, batchId).then(
      (map) => map.get(entry.customId),
      () => undefined,
    );
    if (outcome?.kind !== 'succeeded') {
      entry.unreadableFrom = record.id;
      return false;
    }
    const result = await this.context.online.deliver(entry.key, outcome.answer, {
      stage: entry.stage,
      started: entry.waiters[0]?.started ?? performance.now(),
      retries: 0,
      batchId,
      billed: false,
    });
    if (this.context.entry(entry.customId) === entry)
      this.context.scheduler.dispatch({ type: 'answer', id: entry.customId, result });
    return true;
  }

  private resultsOf(record: BatchState, batchId: string): Promise<Map<string, EntryOutcome>> {
    const { backend, retry } = this.context;
    let results = this.collectedResults.get(record.id);
    if (!results) {
      const reading = retryBatchCall(() => backend.results(batchId, record.model), retry);
      // A read that failed is not kept: the next request of this batch tries it again.
      reading.catch(() => {
        if (this.collectedResults.get(record.id) === reading) this.collectedResults.delete(record.id);
      });
      results = reading;
    }
    // An evicted batch's later request reads its results again.
    return keepRecent(this.collectedResults, record.id, results, COLLECTED_RESULTS_KEPT);
  }
}

export function noAnswerOf(
  outcome: Exclude<EntryOutcome, { kind: 'succeeded' }> | undefined,
  progress: BatchProgress,
  batchId: string,
): NoAnswer {
  if (outcome === undefined) {
    const failed = progress.state === 'failed';
    const detail = failed
      ? `got no answer: batch ${batchId} failed (${progress.reason})`
      : `has no result in batch ${batchId} (ended ${progress.providerStatus})`;
    return unanswered(failed ? 'batch_failed' : 'batch_absent', detail, true);
  }
  switch (outcome.kind) {
    case 'errored': {
      const { failure } = outcome;
      const retryable = failure.retryable;
      const detail = `errored: ${failure.reason}`;
      return { code: failure.code, detail, resubmit: retryable, online: retryable, failure };
    }
    case 'expired':
      return unanswered('batch_expired', 'expired before the provider processed it', true);
    case 'canceled':
      return unanswered('batch_canceled', 'was canceled', true);
  }
}
