import { ProviderError } from '@xsb/core';
import type { BatchContext, Entry, Waiter } from './batch-context';
import { BatchDeliverer } from './batch-deliverer';
import { BatchPoller } from './batch-poller';
import { BatchScheduler, type IoEffect } from './batch-scheduler';
import type { MachineSettings, NoAnswer } from './batch-state-machine';
import { BatchStateStore } from './batch-state-store';
import { BatchSubmitter } from './batch-submitter';
import { classifyFailure } from './classify-failure';
import { type Clock, systemClock } from './clock';
import type { CompleteOptions, CompletionRequest, CompletionResult, LlmClient } from './completion-types';
import { estimateTokens } from './estimate-request-tokens';
import type { BatchBackend } from './provider-adapter';
import { type ProviderClient, withoutCredentials } from './provider-client';

/** How `--batch` is set up for one client. */
export interface BatchOptions {
  /** The run directory: state files go to `<stateDir>/batches/<id>.json`. */
  stateDir: string;
  /** A request a batch did not answer goes into the next batch (`resubmit`, default) or online. */
  fallback?: 'resubmit' | 'online';
  /** Batches a request may go through in this process before its call fails (default 3). */
  maxRounds?: number;
  /** Requests per batch (default: the provider's limit, 100,000 Anthropic / 50,000 OpenAI). */
  maxRequestsPerBatch?: number;
  /** Bytes per batch (default 16 MB), at most the provider's limit; a larger request fails (`too_large`). */
  maxBytesPerBatch?: number;
  /** The client's `preferredConcurrency` (default: the provider's requests per batch). */
  maxPending?: number;
  /** Submit once no new request came for this long (default 2,000 ms). */
  idleMs?: number;
  /** Submit at the latest this long after the first request of a collection (default 60,000 ms). */
  maxCollectMs?: number;
  /** First wait before polling a batch (default 2,000 ms); it doubles up to `maxPollIntervalMs` (60,000). */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** A batch not ended this long after submission is canceled (default 25 h: providers expire at 24 h). */
  deadlineMs?: number;
  /** After a cancel, how long to wait for the batch to end before its calls give up (default 10 min). */
  cancelGraceMs?: number;
  onEvent?: (event: BatchEvent) => void;
  /** The clock of the collection and poll timers (tests pass a fake one). */
  clock?: Clock;
}

export type BatchEvent =
  | { type: 'submitted'; localId: string; batchId: string; requests: number; bytes: number; round: number }
  | { type: 'resumed'; localId: string; batchId: string; requests: number }
  | { type: 'polled'; localId: string; batchId: string; providerStatus: string; nextPollMs: number }
  | { type: 'collected'; localId: string; batchId: string; succeeded: number; missing: number }
  | { type: 'submit_failed'; localId: string; requests: number; reason: string }
  | { type: 'canceled'; localId: string; batchId: string; reason: string }
  | { type: 'online'; customId: string; reason: string };

/** Far below the providers' limits: a batch's body is in memory while it is sent, and a failed upload is cheap to redo. */
export const DEFAULT_MAX_BATCH_BYTES = 16_000_000;

/** The custom_id of a request: its disk-cache key, shortened to the 64 characters both APIs allow. */
export function customIdFor(cacheKey: string): string {
  return `xsb-${cacheKey.slice(0, 60)}`;
}

/**
 * An LlmClient that answers `complete` calls through the provider's batch API, into the same disk
 * cache and ledger as online answers. The flush rules live in batch-state-machine.ts.
 */
export class BatchingClient implements LlmClient {
  readonly judgeId: string;
  readonly preferredConcurrency: number;
  private readonly store: BatchStateStore;
  private readonly scheduler: BatchScheduler;
  private readonly entries = new Map<string, Entry>();
  private readonly deliverer: BatchDeliverer;
  private readonly submitter: BatchSubmitter;
  private readonly poller: BatchPoller;
  private scanned: Promise<void> | undefined;

  constructor(
    private readonly online: ProviderClient,
    private readonly options: BatchOptions,
  ) {
    this.judgeId = online.judgeId;
    const { adapter } = online.options;
    const backend = adapter.batch;
    this.store = new BatchStateStore(options.stateDir, {
      provider: adapter.provider,
      baseUrl: withoutCredentials(adapter.baseUrl),
    });
    const settings = settingsOf(options, backend);
    this.preferredConcurrency = options.maxPending ?? backend.maxRequests;
    const clock = options.clock ?? systemClock;
    this.scheduler = new BatchScheduler(settings, clock, (effect) => this.perform(effect));
    const context: BatchContext = {
      online,
      backend,
      store: this.store,
      retry: online.options,
      clock,
      scheduler: this.scheduler,
      judgeId: this.judgeId,
      entry: (id) => this.entries.get(id),
      emit: (event) => this.emit(event),
    };
    this.deliverer = new BatchDeliverer(context);
    this.submitter = new BatchSubmitter(context, this.deliverer);
    this.poller = new BatchPoller(context, settings.pollIntervalMs);
  }

  /** Requests collected and not yet submitted. */
  get pendingCount(): number {
    return this.scheduler.collecting;
  }

  async complete(request: CompletionRequest, callOptions: CompleteOptions = {}): Promise<CompletionResult> {
    callOptions.signal?.throwIfAborted();
    const started = performance.now();
    const key = this.online.cacheKeyOf(request);
    const hit = await this.online.cachedResult(request, key, started);
    if (hit) return hit;
    const customId = customIdFor(key);
    callOptions.signal?.throwIfAborted();
    return new Promise<CompletionResult>((resolve, reject) => {
      let entry = this.entries.get(customId);
      if (!entry) {
        entry = {
          customId,
          key,
          request,
          model: this.online.modelFor(request),
          stage: this.online.stageFor(request),
          estimatedInputTokens: estimateTokens(request).inputTokens,
          waiters: [],
        };
        this.entries.set(customId, entry);
      }
      this.addWaiter(entry, { resolve, reject, started, signal: callOptions.signal, onAbort: undefined });
      this.scheduler.dispatch({ type: 'arrive', id: customId });
    });
  }

  /** Request entries of batch state records held in memory (open batches only). */
  get heldBatchRequests(): number {
    return this.store.heldRequests;
  }

  /** Bytes of rendered requests held (a request's JSON is dropped once its batch is created). */
  get heldRequestBytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.rendered?.bytes ?? 0;
    return bytes;
  }

  /** Submits what is collected now, without waiting for the idle window. */
  flush(): void {
    this.scheduler.dispatch({ type: 'flush' });
  }

  private addWaiter(entry: Entry, waiter: Waiter): void {
    entry.waiters.push(waiter);
    const signal = waiter.signal;
    if (!signal) return;
    waiter.onAbort = () => {
      entry.waiters = entry.waiters.filter((other) => other !== waiter);
      waiter.reject(signal.reason);
      if (this.entries.get(entry.customId) === entry)
        this.scheduler.dispatch({ type: 'leave', id: entry.customId });
    };
    signal.addEventListener('abort', waiter.onAbort, { once: true });
  }

  private perform(effect: IoEffect): void {
    if (effect.type === 'emit') this.emit(effect.event);
    else if ('localId' in effect) this.performForBatch(effect);
    else if (effect.type === 'submit') void this.submitter.submit(effect.chunk);
    else {
      const entry = this.entries.get(effect.id);
      if (entry) this.performForRequest(entry, effect);
    }
  }

  private performForRequest(entry: Entry, effect: Extract<IoEffect, { id: string }>): void {
    switch (effect.type) {
      case 'route':
        return void this.route(entry);
      case 'render':
        return void this.render(entry);
      case 'online':
        return void this.sendOnline(entry);
      case 'resolve':
        return void this.settle(entry, (waiter, now) =>
          waiter.resolve({ ...effect.result, latencyMs: now - waiter.started }),
        );
      case 'reject':
        return void this.settle(entry, (waiter) => waiter.reject(effect.error));
      case 'fail':
        return void this.fail(entry, effect.why, effect.batchId, effect.rounds);
      case 'drop':
        return void this.settle(entry, () => undefined);
    }
  }

  private performForBatch(effect: Extract<IoEffect, { localId: string }>): void {
    switch (effect.type) {
      case 'resume':
        return void this.poller.resume(effect.localId);
      case 'poll':
        return void this.poller.poll(effect.localId, effect.batchId);
      case 'cancel':
        return void this.poller.cancel(effect.batchId);
      case 'collect':
        return void this.deliverer.collect(effect.localId, effect.batchId, effect.progress);
    }
  }

  /** Where a new request goes: an open batch that holds it already, stored results, or a chunk. */
  private async route(entry: Entry): Promise<void> {
    try {
      this.scanned ??= this.store.scan();
      await this.scanned;
      if (this.entries.get(entry.customId) !== entry) return;
      const open = this.store.openRecordWith(entry.customId);
      if (open) return this.scheduler.dispatch({ type: 'attach', id: entry.customId, localId: open.id });
      const answered = await this.deliverer.answeredRecordFor(entry);
      if (answered && (await this.deliverer.answerFromCollected(entry, answered))) return;
      if (this.entries.get(entry.customId) === entry) this.render(entry);
    } catch (error) {
      if (this.entries.get(entry.customId) === entry)
        this.scheduler.dispatch({ type: 'error', id: entry.customId, error });
    }
  }

  private render(entry: Entry): void {
    if (!entry.rendered) {
      try {
        entry.rendered = this.online.options.adapter.batch.entryFor(
          entry.customId,
          entry.request,
          entry.model,
        );
      } catch (error) {
        // The same request would fail online the same way: one attempt, no retry.
        const failure = this.online.toError(classifyFailure(error, false), entry.model, 1, '');
        this.scheduler.dispatch({ type: 'error', id: entry.customId, error: failure });
        return;
      }
    }
    this.scheduler.dispatch({
      type: 'queue',
      id: entry.customId,
      model: entry.model,
      bytes: entry.rendered.bytes,
    });
  }

  /** A request no batch could answer: the ledger line first, as for online calls, then its callers. */
  private async fail(
    entry: Entry,
    why: NoAnswer,
    batchId: string | undefined,
    rounds: number,
  ): Promise<void> {
    const started = entry.waiters[0]?.started ?? performance.now();
    const error = this.failure(entry, why, batchId, rounds);
    // Its callers are told after the ledger write; a caller asking meanwhile starts afresh.
    this.forget(entry);
    await this.online
      .recordFailure({
        stage: entry.stage,
        model: entry.model,
        started,
        retries: Math.max(0, rounds - 1),
        code: why.code,
        ...(batchId ? { batchId } : {}),
      })
      .catch(() => undefined);
    this.settle(entry, (waiter) => waiter.reject(error));
  }

  private failure(entry: Entry, why: NoAnswer, batchId: string | undefined, rounds: number): ProviderError {
    const after = why.resubmit ? `; no answer after ${rounds} batch rounds` : '';
    const where = batchId ? ` (batch ${batchId})` : '';
    const { provider } = this.online.options.adapter;
    const message = `${provider} ${entry.model}: batch request ${entry.customId}${where} ${why.detail}${after}`;
    return new ProviderError(provider, this.online.redact(message), {
      code: why.code,
      retryable: why.resubmit || why.online,
      ...(why.failure?.status !== undefined ? { status: why.failure.status } : {}),
      details: { customId: entry.customId, ...(batchId ? { batchId } : {}), rounds, model: entry.model },
    });
  }

  private async sendOnline(entry: Entry): Promise<void> {
    let event:
      | { type: 'answer'; id: string; result: CompletionResult }
      | { type: 'error'; id: string; error: unknown };
    try {
      event = { type: 'answer', id: entry.customId, result: await this.online.complete(entry.request) };
    } catch (error) {
      event = { type: 'error', id: entry.customId, error };
    }
    if (this.entries.get(entry.customId) === entry) this.scheduler.dispatch(event);
  }

  private settle(entry: Entry, tell: (waiter: Waiter, now: number) => void): void {
    this.forget(entry);
    const now = performance.now();
    for (const waiter of entry.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort as () => void);
      tell(waiter, now);
    }
  }

  private forget(entry: Entry): void {
    if (this.entries.get(entry.customId) === entry) this.entries.delete(entry.customId);
  }

  private emit(event: BatchEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A progress display that throws must not break the run.
    }
  }
}

function settingsOf(options: BatchOptions, backend: BatchBackend): MachineSettings {
  return {
    fallback: options.fallback ?? 'resubmit',
    maxRounds: options.maxRounds ?? 3,
    maxRequestsPerBatch: Math.min(options.maxRequestsPerBatch ?? backend.maxRequests, backend.maxRequests),
    maxBytesPerBatch: Math.min(options.maxBytesPerBatch ?? DEFAULT_MAX_BATCH_BYTES, backend.maxBytes),
    // The largest request a batch may take: the explicit `maxBytesPerBatch`, else the provider's limit.
    maxRequestBytes: Math.min(options.maxBytesPerBatch ?? backend.maxBytes, backend.maxBytes),
    idleMs: options.idleMs ?? 2_000,
    maxCollectMs: options.maxCollectMs ?? 60_000,
    pollIntervalMs: options.pollIntervalMs ?? 2_000,
    maxPollIntervalMs: options.maxPollIntervalMs ?? 60_000,
    deadlineMs: options.deadlineMs ?? 25 * 3_600_000,
    cancelGraceMs: options.cancelGraceMs ?? 10 * 60_000,
  };
}
