import { type BatchState, mapWithConcurrency, ProviderError, type XsbErrorCode } from '@xsb/core';
import type { BatchBackend, BatchEntry, BatchProgress, EntryOutcome } from './batch-backend';
import { BatchCallError, type BatchRetryPolicy, retryBatchCall } from './batch-retry';
import { BatchStateStore } from './batch-state-store';
import { classifyFailure, type Failure } from './classify-failure';
import type { CompleteOptions, CompletionRequest, CompletionResult, LlmClient } from './completion-types';
import { estimateTokens } from './estimate-request-tokens';
import { type ProviderClient, withoutCredentials } from './provider-client';
import { sleep } from './rate-limiter';

/** How `--batch` is set up for one client. */
export interface BatchOptions {
  /** The run directory: state files go to `<stateDir>/batches/<id>.json`. */
  stateDir: string;
  /**
   * What becomes of a request a batch did not answer (expired, canceled, a retryable error, a
   * submission the provider refused): `resubmit` (default) puts it into the next batch, up to
   * `maxRounds` batches in all; `online` sends it through the normal client at once.
   */
  fallback?: 'resubmit' | 'online';
  /** Batches a request may go through in this process before its call fails (default 3). */
  maxRounds?: number;
  /** Requests per batch (default: the provider's limit, 100,000 Anthropic / 50,000 OpenAI). */
  maxRequestsPerBatch?: number;
  /**
   * Bytes per batch, at most the provider's limit (256 MB Anthropic / 200 MB OpenAI); a request
   * larger than this fails (`too_large`). Default: batches of up to 16 MB
   * ({@link DEFAULT_MAX_BATCH_BYTES}), and a request larger than that goes in a batch of its own
   * under the provider's limit. A batch's body is in memory while it is sent.
   */
  maxBytesPerBatch?: number;
  /**
   * The client's `preferredConcurrency` (default: the provider's request limit of one batch,
   * 100,000 / 50,000). Several batches can be in flight at once when `maxRequestsPerBatch` is lower.
   */
  maxPending?: number;
  /** Submit once no new request came for this long (default 2,000 ms). */
  idleMs?: number;
  /** Submit at the latest this long after the first request of a collection (default 60,000 ms). */
  maxCollectMs?: number;
  /** First wait before polling a batch (default 2,000 ms); it doubles after every poll … */
  pollIntervalMs?: number;
  /** … up to this (default 60,000 ms). */
  maxPollIntervalMs?: number;
  /** A batch not ended this long after submission is canceled (default 25 h: providers expire at 24 h). */
  deadlineMs?: number;
  /** After a cancel, how long to wait for the batch to end before its calls give up (default 10 min). */
  cancelGraceMs?: number;
  /** Progress for the CLI; a library never prints. */
  onEvent?: (event: BatchEvent) => void;
}

export type BatchEvent =
  | { type: 'submitted'; localId: string; batchId: string; requests: number; bytes: number; round: number }
  | { type: 'resumed'; localId: string; batchId: string; requests: number }
  | { type: 'polled'; localId: string; batchId: string; providerStatus: string; nextPollMs: number }
  | { type: 'collected'; localId: string; batchId: string; succeeded: number; missing: number }
  | { type: 'submit_failed'; localId: string; requests: number; reason: string }
  | { type: 'canceled'; localId: string; batchId: string; reason: string }
  | { type: 'online'; customId: string; reason: string };

const DEFAULTS = {
  fallback: 'resubmit',
  maxRounds: 3,
  idleMs: 2_000,
  maxCollectMs: 60_000,
  pollIntervalMs: 2_000,
  maxPollIntervalMs: 60_000,
  deadlineMs: 25 * 3_600_000,
  cancelGraceMs: 10 * 60_000,
} as const;

/**
 * The default size of a batch, far below the providers' limits (256 / 200 MB): while a batch is
 * sent its body is in memory (its requests' JSON and the Blob made of it, streamed to the socket),
 * so this bounds what a submission adds to a run's footprint, and a failed upload costs little to
 * send again. Batches cost the same whatever their size; a run only makes more of them.
 */
export const DEFAULT_MAX_BATCH_BYTES = 16_000_000;

/** Room kept under a byte limit for the batch envelope (`{"requests":[…]}`, multipart headers). */
const ENVELOPE_BYTES = 4096;
/** Cache writes and ledger lines of one batch's results run this many at a time. */
const DELIVERY_CONCURRENCY = 32;
/**
 * Results of collected batches read again (a resumed run without the disk cache) kept in memory:
 * enough for the decks being resumed, not every batch of the run.
 */
const COLLECTED_RESULTS_KEPT = 4;

interface Waiter {
  resolve: (result: CompletionResult) => void;
  reject: (error: unknown) => void;
  started: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** One distinct request (identical concurrent calls share it) on its way through batches. */
interface Entry {
  customId: string;
  key: string;
  request: CompletionRequest;
  model: string;
  stage: string;
  estimatedInputTokens: number;
  waiters: Waiter[];
  /** Batches this request went into in this process. */
  rounds: number;
  state: 'routing' | 'pending' | 'submitted' | 'online';
  recordId?: string;
  rendered?: BatchEntry;
  /** A collected batch whose stored answer for this request could not be read: not tried again. */
  unreadableFrom?: string;
}

/** Why a batch gave a request no answer, and what may be tried next. */
interface NoAnswer {
  code: XsbErrorCode;
  detail: string;
  /** A new batch could answer it. */
  resubmit: boolean;
  /** An online call could answer it. */
  online: boolean;
  failure?: Failure;
}

/** The custom_id of a request: its disk-cache key, shortened to the 64 characters both APIs allow. */
export function customIdFor(cacheKey: string): string {
  return `xsb-${cacheKey.slice(0, 60)}`;
}

/**
 * An LlmClient that answers `complete` calls through the provider's batch API. Stage code does not
 * change: it makes its calls as before (ideally `preferredConcurrency` of them at once); each call
 * waits while the client collects requests, submits them as batches, polls, and maps the results by
 * custom_id into the same disk cache and ledger as online answers.
 *
 * Flush rule: the collected requests are submitted when no new request has come for `idleMs` (all
 * callers are waiting), when they fill a batch (count or bytes), or `maxCollectMs` after the first.
 * While a batch's results are being handed out, the idle clock does not run, so the follow-up calls
 * of a stage with dependent steps (extract claims → verify them) form the next batch together.
 */
export class BatchingClient implements LlmClient {
  readonly judgeId: string;
  readonly preferredConcurrency: number;
  private readonly backend: BatchBackend;
  private readonly store: BatchStateStore;
  private readonly settings: Required<Omit<BatchOptions, 'onEvent' | 'stateDir'>>;
  /** The largest request a batch may take: the explicit `maxBytesPerBatch`, else the provider's limit. */
  private readonly maxRequestBytes: number;
  private readonly retry: BatchRetryPolicy;
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<Entry>();
  private pendingBytes = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private collectTimer: NodeJS.Timeout | undefined;
  /** Batches whose results are being handed out: no idle flush meanwhile. */
  private delivering = 0;
  private scanned: Promise<void> | undefined;
  private readonly polls = new Map<string, Promise<void>>();
  private readonly createdHere = new Set<string>();
  private readonly collectedResults = new Map<string, Promise<Map<string, EntryOutcome>>>();
  /** The submission being made; the next one starts when it ends (see `queueSubmission`). */
  private submissions: Promise<void> = Promise.resolve();

  constructor(
    private readonly online: ProviderClient,
    private readonly options: BatchOptions,
  ) {
    this.judgeId = online.judgeId;
    const { adapter, limits } = online.options;
    this.backend = adapter.batch;
    this.store = new BatchStateStore(options.stateDir, {
      provider: adapter.provider,
      baseUrl: withoutCredentials(adapter.baseUrl),
    });
    const maxRequests = Math.min(
      options.maxRequestsPerBatch ?? this.backend.maxRequests,
      this.backend.maxRequests,
    );
    this.settings = {
      fallback: options.fallback ?? DEFAULTS.fallback,
      maxRounds: options.maxRounds ?? DEFAULTS.maxRounds,
      maxRequestsPerBatch: maxRequests,
      maxBytesPerBatch: Math.min(options.maxBytesPerBatch ?? DEFAULT_MAX_BATCH_BYTES, this.backend.maxBytes),
      maxPending: options.maxPending ?? this.backend.maxRequests,
      idleMs: options.idleMs ?? DEFAULTS.idleMs,
      maxCollectMs: options.maxCollectMs ?? DEFAULTS.maxCollectMs,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULTS.pollIntervalMs,
      maxPollIntervalMs: options.maxPollIntervalMs ?? DEFAULTS.maxPollIntervalMs,
      deadlineMs: options.deadlineMs ?? DEFAULTS.deadlineMs,
      cancelGraceMs: options.cancelGraceMs ?? DEFAULTS.cancelGraceMs,
    };
    this.maxRequestBytes = Math.min(options.maxBytesPerBatch ?? this.backend.maxBytes, this.backend.maxBytes);
    this.preferredConcurrency = this.settings.maxPending;
    this.retry = {
      limits,
      ...(online.options.baseBackoffMs !== undefined ? { baseBackoffMs: online.options.baseBackoffMs } : {}),
      ...(online.options.random ? { random: online.options.random } : {}),
    };
  }

  /** Requests collected and not yet submitted. */
  get pendingCount(): number {
    return this.pending.size;
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
      const fresh = !entry;
      if (!entry) {
        entry = {
          customId,
          key,
          request,
          model: this.online.modelFor(request),
          stage: this.online.stageFor(request),
          estimatedInputTokens: estimateTokens(request).inputTokens,
          waiters: [],
          rounds: 0,
          state: 'routing',
        };
        this.entries.set(customId, entry);
      }
      this.addWaiter(entry, { resolve, reject, started, signal: callOptions.signal, onAbort: undefined });
      if (fresh) void this.route(entry);
    });
  }

  /**
   * Request entries of batch state records held in memory: only those of batches not yet collected
   * (a collected batch's list stays in its state file), so memory follows the batches in flight.
   */
  get heldBatchRequests(): number {
    return this.store.heldRequests;
  }

  /**
   * Bytes of rendered requests the client holds: those collected or waiting for their submission
   * (a request's JSON is dropped once its batch is created).
   */
  get heldRequestBytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.rendered?.bytes ?? 0;
    return bytes;
  }

  /** Submits what is collected now, without waiting for the idle window. */
  flush(): void {
    this.submitPending(false);
  }

  private addWaiter(entry: Entry, waiter: Waiter): void {
    entry.waiters.push(waiter);
    const signal = waiter.signal;
    if (!signal) return;
    waiter.onAbort = () => {
      entry.waiters = entry.waiters.filter((other) => other !== waiter);
      waiter.reject(signal.reason);
      if (entry.waiters.length === 0 && entry.state === 'pending') this.unqueue(entry);
      if (entry.waiters.length === 0 && entry.state !== 'submitted') this.forget(entry);
    };
    signal.addEventListener('abort', waiter.onAbort, { once: true });
  }

  /** Where a new request goes: an open batch that holds it already, stored results, or the queue. */
  private async route(entry: Entry): Promise<void> {
    try {
      this.scanned ??= this.store.scan();
      await this.scanned;
      const open = this.store.openRecordWith(entry.customId);
      if (open) {
        this.attach(entry, open);
        return;
      }
      const answered = await this.answeredRecordFor(entry);
      if (answered && (await this.answerFromCollected(entry, answered))) return;
      this.enqueue(entry);
    } catch (error) {
      this.rejectAll(entry, error);
    }
  }

  private attach(entry: Entry, record: BatchState): void {
    entry.state = 'submitted';
    entry.recordId = record.id;
    this.ensurePolling(record);
  }

  /** A collected batch of this run that answered the request and has not failed to give its answer. */
  private async answeredRecordFor(entry: Entry): Promise<BatchState | undefined> {
    if (this.online.options.refresh) return undefined;
    const record = await this.store.answeredRecordWith(entry.customId);
    return record && record.id !== entry.unreadableFrom ? record : undefined;
  }

  /**
   * A request a collected batch of this run answered (the disk cache is off, or lost the entry):
   * its result is read again from the provider and handed out unbilled (ledger `cacheHit: true`).
   */
  private async answerFromCollected(entry: Entry, record: BatchState): Promise<boolean> {
    const batchId = record.batchId;
    if (!batchId) return false;
    let results = this.collectedResults.get(record.id);
    if (results) this.collectedResults.delete(record.id);
    else {
      const reading = retryBatchCall(() => this.backend.results(batchId, record.model), this.retry);
      // A read that failed is not kept: the next request of this batch tries it again.
      reading.catch(() => {
        if (this.collectedResults.get(record.id) === reading) this.collectedResults.delete(record.id);
      });
      results = reading;
    }
    // The most recently used last; the oldest goes (a later request of it reads its results again).
    this.collectedResults.set(record.id, results);
    if (this.collectedResults.size > COLLECTED_RESULTS_KEPT)
      this.collectedResults.delete(this.collectedResults.keys().next().value as string);
    const outcome = await results.then(
      (map) => map.get(entry.customId),
      () => undefined,
    );
    if (outcome?.kind !== 'succeeded') {
      entry.unreadableFrom = record.id;
      return false;
    }
    const result = await this.online.deliver(entry.key, outcome.answer, {
      stage: entry.stage,
      started: entry.waiters[0]?.started ?? performance.now(),
      retries: 0,
      batchId,
      billed: false,
    });
    this.resolveAll(entry, result);
    return true;
  }

  private async answerOrEnqueue(entry: Entry, record: BatchState): Promise<void> {
    entry.state = 'routing';
    try {
      if (!(await this.answerFromCollected(entry, record))) this.enqueue(entry);
    } catch (error) {
      this.rejectAll(entry, error);
    }
  }

  private enqueue(entry: Entry): void {
    if (entry.waiters.length === 0) {
      this.forget(entry);
      return;
    }
    if (!entry.rendered) {
      try {
        entry.rendered = this.backend.entryFor(entry.customId, entry.request, entry.model);
      } catch (error) {
        // The same request would fail online the same way: one attempt, no retry.
        this.rejectAll(entry, this.online.toError(classifyFailure(error, false), entry.model, 1, ''));
        return;
      }
    }
    if (entry.rendered.bytes > this.maxRequestBytes - ENVELOPE_BYTES) {
      this.noAnswer(
        entry,
        {
          code: 'too_large',
          detail: `is ${entry.rendered.bytes} bytes, more than a batch may hold (${this.maxRequestBytes})`,
          resubmit: false,
          online: true,
        },
        undefined,
      );
      return;
    }
    entry.state = 'pending';
    entry.recordId = undefined;
    this.pending.add(entry);
    this.pendingBytes += entry.rendered.bytes;
    this.schedule();
  }

  private unqueue(entry: Entry): void {
    if (!this.pending.delete(entry)) return;
    this.pendingBytes -= entry.rendered?.bytes ?? 0;
  }

  private schedule(): void {
    if (
      this.pending.size >= this.settings.maxRequestsPerBatch ||
      this.pendingBytes >= this.settings.maxBytesPerBatch - ENVELOPE_BYTES
    )
      this.submitPending(true);
    if (this.pending.size === 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onIdle(), this.settings.idleMs);
    this.collectTimer ??= setTimeout(() => {
      this.collectTimer = undefined;
      this.submitPending(false);
    }, this.settings.maxCollectMs);
  }

  private onIdle(): void {
    this.idleTimer = undefined;
    if (this.delivering > 0) {
      this.idleTimer = setTimeout(() => this.onIdle(), this.settings.idleMs);
      return;
    }
    this.submitPending(false);
  }

  /** Splits the queue into batches (one model each, under the limits) and submits them. */
  private submitPending(onlyFull: boolean): void {
    const chunks = this.split([...this.pending]);
    if (onlyFull) {
      const last = chunks.at(-1);
      if (last && !last.full) chunks.pop();
    }
    for (const chunk of chunks) {
      for (const entry of chunk.entries) this.unqueue(entry);
      this.queueSubmission(chunk.entries);
    }
    if (this.pending.size === 0) {
      clearTimeout(this.idleTimer);
      clearTimeout(this.collectTimer);
      this.idleTimer = undefined;
      this.collectTimer = undefined;
    }
  }

  private split(entries: Entry[]): Array<{ entries: Entry[]; full: boolean }> {
    const byModel = new Map<string, Entry[]>();
    for (const entry of entries) {
      const list = byModel.get(entry.model);
      if (list) list.push(entry);
      else byModel.set(entry.model, [entry]);
    }
    const limitBytes = this.settings.maxBytesPerBatch - ENVELOPE_BYTES;
    const chunks: Array<{ entries: Entry[]; full: boolean }> = [];
    for (const list of byModel.values()) {
      let current: Entry[] = [];
      let bytes = 0;
      for (const entry of list) {
        const size = entry.rendered?.bytes ?? 0;
        if (
          current.length > 0 &&
          (current.length >= this.settings.maxRequestsPerBatch || bytes + size > limitBytes)
        ) {
          chunks.push({ entries: current, full: true });
          current = [];
          bytes = 0;
        }
        current.push(entry);
        bytes += size;
      }
      if (current.length > 0)
        chunks.push({
          entries: current,
          full: current.length >= this.settings.maxRequestsPerBatch || bytes >= limitBytes,
        });
    }
    return chunks;
  }

  /**
   * Submissions run one at a time per client (one client per judge): each holds its batch's body (up
   * to the byte limit) while it is sent, so several at once would add up. A create takes seconds, a
   * batch minutes to hours, so waiting for the one before costs a run nothing it would notice.
   */
  private queueSubmission(chunk: Entry[]): void {
    this.submissions = this.submissions
      .then(() => this.submit(chunk))
      .catch((error: unknown) => {
        for (const entry of chunk)
          if (this.entries.get(entry.customId) === entry) this.rejectAll(entry, error);
      });
  }

  /** Writes the state (before any provider call), then uploads and creates the batch. */
  private async submit(chunk: Entry[]): Promise<void> {
    let record: BatchState | undefined;
    let entries: Entry[] = [];
    const answeredElsewhere: Array<[Entry, BatchState]> = [];
    try {
      await this.store.withLock(async () => {
        // Another process on this run may have submitted some of these meanwhile, or even had
        // their batch collected since they were routed: those are answered, not paid for again.
        await this.store.scan();
        for (const entry of chunk) {
          if (entry.waiters.length === 0) {
            this.forget(entry);
            continue;
          }
          const open = this.store.openRecordWith(entry.customId);
          const answered = open ? undefined : await this.answeredRecordFor(entry);
          if (open) this.attach(entry, open);
          else if (answered) answeredElsewhere.push([entry, answered]);
          else entries.push(entry);
        }
        if (entries.length === 0) return;
        let round = 1;
        for (const entry of entries)
          round = Math.max(round, (await this.store.submissionsOf(entry.customId)) + 1);
        record = this.store.create({
          judge: this.judgeId,
          model: entries[0]?.model as string,
          round,
          requests: entries.map((entry) => ({
            customId: entry.customId,
            key: entry.key,
            stage: entry.stage,
          })),
        });
        await this.store.write(record);
      });
    } catch (error) {
      for (const entry of [...chunk]) this.rejectAll(entry, error);
      return;
    }
    for (const [entry, answered] of answeredElsewhere) void this.answerOrEnqueue(entry, answered);
    if (!record) return;
    const submitted = record;
    this.createdHere.add(submitted.id);
    for (const entry of entries) {
      entry.state = 'submitted';
      entry.recordId = submitted.id;
      entry.rounds += 1;
    }
    entries = entries.filter((entry) => entry.rendered);
    await this.createRemote(
      submitted,
      entries.map((entry) => entry.rendered as BatchEntry),
    );
    // The provider holds them now; a request that needs another batch is rendered again.
    for (const entry of entries)
      if (entry.state === 'submitted' && entry.recordId === submitted.id) entry.rendered = undefined;
  }

  private async createRemote(record: BatchState, rendered: BatchEntry[]): Promise<void> {
    const since = Date.now();
    try {
      if (this.backend.upload && !record.inputFileId) {
        const upload = this.backend.upload.bind(this.backend);
        record.inputFileId = await retryBatchCall(() => upload(rendered, record.id), this.retry);
        await this.store.write(record);
      }
      const batchId = await retryBatchCall(
        () => this.backend.create(rendered, record.id, record.inputFileId),
        this.retry,
        () => this.findOrphan(record, since),
      );
      record.batchId = batchId;
      record.status = 'submitted';
      record.submittedAt = new Date().toISOString();
      await this.store.write(record);
    } catch (error) {
      const reason = this.online.redact(
        error instanceof BatchCallError ? error.failure.reason : (error as Error).message,
      );
      record.status = 'failed';
      record.error = `submission failed: ${reason}`;
      await this.store.write(record).catch(() => undefined);
      this.emit({ type: 'submit_failed', localId: record.id, requests: record.requests.length, reason });
      const failure = error instanceof BatchCallError ? error.failure : undefined;
      this.handleMissing(record, () => ({
        code: failure?.code ?? 'batch_submit',
        detail: `could not be submitted (${reason})`,
        // A refused submission (400, 404: no batch API at this base URL) fails the same way again.
        resubmit: failure?.retryable ?? false,
        online: true,
        ...(failure ? { failure } : {}),
      }));
      return;
    }
    this.emit({
      type: 'submitted',
      localId: record.id,
      batchId: record.batchId,
      requests: record.requests.length,
      bytes: rendered.reduce((sum, entry) => sum + entry.bytes, 0),
      round: record.round,
    });
    this.ensurePolling(record);
  }

  private async findOrphan(record: BatchState, since: number): Promise<string | undefined> {
    return this.backend.findOrphan({
      localId: record.id,
      since,
      requestCount: record.requests.length,
      ...(record.inputFileId ? { inputFileId: record.inputFileId } : {}),
      known: this.store.knownBatchIds(),
    });
  }

  private ensurePolling(record: BatchState): void {
    if (this.polls.has(record.id)) return;
    const loop = this.pollUntilEnded(record)
      .catch((error: unknown) => {
        this.handleMissing(record, () => ({
          code: 'batch_poll',
          detail: `could not be followed (${this.online.redact((error as Error).message)})`,
          resubmit: false,
          online: true,
        }));
      })
      .finally(() => this.polls.delete(record.id));
    this.polls.set(record.id, loop);
  }

  private async pollUntilEnded(initial: BatchState): Promise<void> {
    let record = initial;
    let interval = this.settings.pollIntervalMs;
    // A submission another live process is making: wait for it to name its batch (or fail).
    while (record.status === 'preparing' && this.store.ownedByLiveProcess(record)) {
      await sleep(interval);
      record = (await this.store.reread(record.id)) ?? record;
    }
    if (record.status === 'failed') {
      this.handleMissing(record, () => ({
        code: 'batch_submit',
        detail: 'was in a submission that failed',
        resubmit: true,
        online: true,
      }));
      return;
    }
    if (record.status === 'preparing') {
      if (!(await this.recover(record))) return;
      record = this.store.get(record.id) ?? record;
    }
    if (record.status === 'collected') {
      // Another process collected it while this one waited: the stored results answer these.
      for (const entry of this.entriesOf(record)) {
        entry.state = 'routing';
        void this.route(entry);
      }
      return;
    }
    const batchId = record.batchId as string;
    if (!this.createdHere.has(record.id))
      this.emit({ type: 'resumed', localId: record.id, batchId, requests: record.requests.length });
    const submittedAt = Date.parse(record.submittedAt ?? record.createdAt);
    let canceledAt: number | undefined;
    for (;;) {
      await sleep(interval);
      let progress: BatchProgress;
      try {
        progress = await retryBatchCall(() => this.backend.progress(batchId), this.retry);
      } catch (error) {
        if (error instanceof BatchCallError && !error.failure.retryable) {
          // The provider does not know the batch (404) or refuses to show it: nothing to wait for.
          record.status = 'failed';
          record.error = `status check failed: ${this.online.redact(error.failure.reason)}`;
          await this.store.write(record);
          this.handleMissing(record, () => ({
            code: error.failure.code,
            detail: `was in batch ${batchId}, which the provider no longer shows (${this.online.redact(error.failure.reason)})`,
            resubmit: true,
            online: true,
          }));
          return;
        }
        progress = { state: 'running', providerStatus: record.providerStatus ?? 'unknown' };
      }
      if (progress.providerStatus !== record.providerStatus) {
        record.providerStatus = progress.providerStatus;
        await this.store.write(record);
      }
      interval = Math.min(interval * 2, this.settings.maxPollIntervalMs);
      this.emit({
        type: 'polled',
        localId: record.id,
        batchId,
        providerStatus: progress.providerStatus,
        nextPollMs: interval,
      });
      if (progress.state !== 'running') {
        await this.collect(record, progress);
        return;
      }
      const now = Date.now();
      if (canceledAt === undefined && now - submittedAt > this.settings.deadlineMs) {
        canceledAt = now;
        await retryBatchCall(() => this.backend.cancel(batchId), this.retry).catch(() => undefined);
        this.emit({ type: 'canceled', localId: record.id, batchId, reason: 'deadline' });
      }
      if (canceledAt !== undefined && now - canceledAt > this.settings.cancelGraceMs) {
        // The record stays `submitted`: a later run polls it again and stores what it answered.
        this.handleMissing(record, () => ({
          code: 'batch_deadline',
          detail: `got no answer: batch ${batchId} did not end within ${this.settings.deadlineMs} ms (canceled)`,
          resubmit: false,
          online: true,
        }));
        return;
      }
    }
  }

  /**
   * A record left in `preparing` by a process that died: the provider may have created the batch
   * after all. Adopts it when found, else marks the record failed and queues its requests again.
   * Under the lock, so when two processes find the same record only the first decides.
   */
  private async recover(initial: BatchState): Promise<boolean> {
    const record = await this.store.withLock(async () => {
      await this.store.scan();
      const current = (await this.store.reread(initial.id)) ?? initial;
      if (current.status !== 'preparing') return current;
      const found =
        current.batchId ??
        (await retryBatchCall(
          () => this.findOrphan(current, Date.parse(current.createdAt)),
          this.retry,
        ).catch(() => undefined));
      if (found) {
        current.batchId = found;
        current.status = 'submitted';
        current.submittedAt ??= new Date().toISOString();
      } else {
        current.status = 'failed';
        current.error = 'the submission was interrupted before the provider accepted it';
      }
      await this.store.write(current);
      return current;
    });
    if (record.status === 'submitted') return true;
    for (const entry of this.entriesOf(record)) {
      if (record.status === 'failed') this.enqueueAgain(entry);
      else {
        entry.state = 'routing';
        void this.route(entry);
      }
    }
    return false;
  }

  /** Reads an ended batch's results and hands them out: cache, ledger (once per answer), callers. */
  private async collect(record: BatchState, progress: BatchProgress): Promise<void> {
    const batchId = record.batchId as string;
    const later: Array<[Entry, NoAnswer]> = [];
    const answered: Array<[Entry, CompletionResult]> = [];
    const counts = { succeeded: 0, errored: 0, expired: 0, canceled: 0, absent: 0 };
    const missing: string[] = [];
    this.delivering += 1;
    try {
      await this.store.withLock(async () => {
        const onDisk = (await this.store.reread(record.id)) ?? record;
        // Another process on this run stored these results already: hand them out, do not bill again.
        const billed = onDisk.status !== 'collected';
        const outcomes =
          progress.state === 'failed'
            ? new Map<string, EntryOutcome>()
            : await retryBatchCall(() => this.backend.results(batchId, record.model), this.retry);
        const submittedAt = Date.parse(record.submittedAt ?? record.createdAt);
        await mapWithConcurrency(record.requests, DELIVERY_CONCURRENCY, async ({ customId, key, stage }) => {
          const outcome = outcomes.get(customId);
          const entry = this.entryOf(customId, record);
          if (outcome?.kind === 'succeeded') {
            counts.succeeded += 1;
            const started = entry?.waiters[0]?.started ?? performance.now() - (Date.now() - submittedAt);
            const result = await this.online.deliver(key, outcome.answer, {
              stage,
              started,
              retries: Math.max(0, (entry?.rounds ?? 1) - 1),
              batchId,
              billed,
              ...(entry ? { estimatedInputTokens: entry.estimatedInputTokens } : {}),
            });
            if (entry) answered.push([entry, result]);
            return;
          }
          missing.push(customId);
          const why = noAnswerOf(outcome, progress, batchId);
          if (outcome === undefined) counts.absent += 1;
          else counts[outcome.kind] += 1;
          if (entry) later.push([entry, why]);
        });
        record.status = 'collected';
        record.collectedAt ??= new Date().toISOString();
        record.providerStatus = progress.providerStatus;
        record.missing = missing.sort();
        record.counts = counts;
        if (progress.state === 'failed') record.error = progress.reason;
        if (billed) await this.store.write(record);
      });
    } catch (error) {
      // The batch ended but its results could not be read: the record stays `submitted`, so a
      // later run collects them; resubmitting now would pay for these requests twice.
      const reason = error instanceof BatchCallError ? error.failure.reason : (error as Error).message;
      for (const [entry, result] of answered) this.resolveAll(entry, result);
      this.handleMissing(record, () => ({
        code: 'batch_results',
        detail: `has results in batch ${batchId} that could not be read (${this.online.redact(reason)}); run again to collect them`,
        resubmit: false,
        online: true,
      }));
      return;
    } finally {
      this.delivering -= 1;
    }
    this.emit({
      type: 'collected',
      localId: record.id,
      batchId,
      succeeded: counts.succeeded,
      missing: missing.length,
    });
    // Callers hear of their answers only once cache, ledger and state file hold them.
    for (const [entry, result] of answered) this.resolveAll(entry, result);
    for (const [entry, why] of later) this.noAnswer(entry, why, batchId);
  }

  /** The in-process entry waiting on this record for a custom_id, if any. */
  private entryOf(customId: string, record: BatchState): Entry | undefined {
    const entry = this.entries.get(customId);
    return entry?.state === 'submitted' && entry.recordId === record.id ? entry : undefined;
  }

  private entriesOf(record: BatchState): Entry[] {
    return record.requests
      .map(({ customId }) => this.entryOf(customId, record))
      .filter((entry): entry is Entry => entry !== undefined);
  }

  private handleMissing(record: BatchState, why: () => NoAnswer): void {
    for (const entry of this.entriesOf(record)) this.noAnswer(entry, why(), record.batchId);
  }

  /** A request whose batch never reached the provider: it goes into the next batch, no round spent. */
  private enqueueAgain(entry: Entry): void {
    entry.rounds = Math.max(0, entry.rounds - 1);
    entry.state = 'routing';
    this.enqueue(entry);
  }

  /** Resubmits, sends online or fails a request a batch did not answer, as `fallback` says. */
  private noAnswer(entry: Entry, why: NoAnswer, batchId: string | undefined): void {
    if (entry.waiters.length === 0) {
      this.forget(entry);
      return;
    }
    if (this.settings.fallback === 'online' && why.online) {
      void this.sendOnline(entry, why);
      return;
    }
    if (why.resubmit && entry.rounds < this.settings.maxRounds) {
      entry.state = 'routing';
      this.enqueue(entry);
      return;
    }
    const rounds = why.resubmit ? `; no answer after ${entry.rounds} batch rounds` : '';
    const where = batchId ? ` (batch ${batchId})` : '';
    const { provider } = this.online.options.adapter;
    const error = new ProviderError(
      provider,
      this.online.redact(
        `${provider} ${entry.model}: batch request ${entry.customId}${where} ${why.detail}${rounds}`,
      ),
      {
        code: why.code,
        retryable: why.resubmit || why.online,
        ...(why.failure?.status !== undefined ? { status: why.failure.status } : {}),
        details: {
          customId: entry.customId,
          ...(batchId ? { batchId } : {}),
          rounds: entry.rounds,
          model: entry.model,
        },
      },
    );
    // The ledger line is written before the caller hears of the failure, as for online calls.
    void this.online
      .recordFailure({
        stage: entry.stage,
        model: entry.model,
        started: entry.waiters[0]?.started ?? performance.now(),
        retries: Math.max(0, entry.rounds - 1),
        code: why.code,
        ...(batchId ? { batchId } : {}),
      })
      .finally(() => this.rejectAll(entry, error));
  }

  private async sendOnline(entry: Entry, why: NoAnswer): Promise<void> {
    entry.state = 'online';
    this.emit({ type: 'online', customId: entry.customId, reason: why.detail });
    try {
      const result = await this.online.complete(entry.request);
      this.resolveAll(entry, result);
    } catch (error) {
      this.rejectAll(entry, error);
    }
  }

  private resolveAll(entry: Entry, result: CompletionResult): void {
    this.forget(entry);
    const now = performance.now();
    for (const waiter of entry.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort as () => void);
      waiter.resolve({ ...result, latencyMs: now - waiter.started });
    }
  }

  private rejectAll(entry: Entry, error: unknown): void {
    this.forget(entry);
    this.unqueue(entry);
    for (const waiter of entry.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort as () => void);
      waiter.reject(error);
    }
  }

  /**
   * Drops an entry unless a newer one for the same request has taken its place: a request whose
   * caller gave up while its chunk waited for a submission may be asked again meanwhile.
   */
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

function noAnswerOf(outcome: EntryOutcome | undefined, progress: BatchProgress, batchId: string): NoAnswer {
  if (outcome === undefined) {
    const detail =
      progress.state === 'failed'
        ? `got no answer: batch ${batchId} failed (${progress.reason})`
        : `has no result in batch ${batchId} (ended ${progress.providerStatus})`;
    return {
      code: progress.state === 'failed' ? 'batch_failed' : 'batch_absent',
      detail,
      resubmit: true,
      online: true,
    };
  }
  switch (outcome.kind) {
    case 'errored':
      return {
        code: outcome.failure.code,
        detail: `errored: ${outcome.failure.reason}`,
        resubmit: outcome.failure.retryable,
        online: outcome.failure.retryable,
        failure: outcome.failure,
      };
    case 'expired':
      return {
        code: 'batch_expired',
        detail: 'expired before the provider processed it',
        resubmit: true,
        online: true,
      };
    case 'canceled':
      return { code: 'batch_canceled', detail: 'was canceled', resubmit: true, online: true };
    case 'succeeded':
      throw new Error('a succeeded batch entry has an answer');
  }
}
