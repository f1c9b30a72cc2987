import { hashBytes, ProviderError } from '@xsb/core';
import { classifyFailure, type Failure } from './classify-failure';
import type { CompleteOptions, CompletionRequest, CompletionResult, LlmClient } from './completion-types';
import type { DiskCache } from './disk-cache';
import { estimateTokens } from './estimate-request-tokens';
import type { ProviderAdapter, ProviderAnswer } from './provider-adapter';
import { type AttemptOutcome, type RateLimiter, sharedRateLimiter, sleep } from './rate-limiter';
import { CACHE_FORMAT_VERSION, cacheKeyFor } from './request-key';
import { backoffDelayMs, type ResolvedLimits } from './retry-policy';
import type { LedgerCall, UsageLedger } from './usage-ledger';

export interface ProviderClientOptions {
  judgeId: string;
  model: string;
  adapter: ProviderAdapter;
  limits: ResolvedLimits;
  cache?: DiskCache;
  /** Skip reading the cache (answers are still written). */
  refresh: boolean;
  ledger?: UsageLedger;
  stage: string;
  /** Strings that must never reach a message (the API key). */
  secrets: string[];
  random?: () => number;
  baseBackoffMs?: number;
}

/** Extra jitter on top of a server-given retry time, so a crowd told "2 s" does not return at once. */
const RETRY_AFTER_JITTER_MS = 250;

/** A provider behind the whole policy: disk cache, admission, retries with backoff, one ledger line per call. */
export class ProviderClient implements LlmClient {
  readonly judgeId: string;
  readonly preferredConcurrency: number;
  /** The provider's admission budget, shared by every client of the process with this account. */
  readonly limiter: RateLimiter;
  /** After a 401/403 every later call fails at once: the key will not start working mid-run. */
  private authFailure: ProviderError | undefined;

  constructor(readonly options: ProviderClientOptions) {
    this.judgeId = options.judgeId;
    this.preferredConcurrency = options.limits.maxConcurrency;
    this.limiter = sharedRateLimiter(
      `${options.adapter.provider}|${options.adapter.baseUrl}|${hashBytes(options.secrets.join('\u0000')).slice(0, 16)}`,
      options.limits,
    );
  }

  /** The model a request is sent to: its own `model`, else the judge spec's. */
  modelFor(request: CompletionRequest): string {
    return request.model ?? this.options.model;
  }

  stageFor(request: CompletionRequest): string {
    return request.stage ?? this.options.stage;
  }

  /** The disk-cache key of a request at this provider and base URL (also a batch custom_id's source). */
  cacheKeyOf(request: CompletionRequest): string {
    const { provider, baseUrl } = this.options.adapter;
    return cacheKeyFor({ provider, model: this.modelFor(request), baseUrl, request });
  }

  /** The cached answer of a request (with its ledger line), or undefined. */
  async cachedResult(
    request: CompletionRequest,
    key: string,
    started: number,
  ): Promise<CompletionResult | undefined> {
    const hit = this.options.refresh ? undefined : await this.options.cache?.get(key);
    if (!hit) return undefined;
    const result = this.resultOf(hit, started, 0, true);
    await this.answered(this.stageFor(request), result, { cacheHit: true });
    return result;
  }

  async complete(request: CompletionRequest, callOptions: CompleteOptions = {}): Promise<CompletionResult> {
    const { adapter } = this.options;
    const model = this.modelFor(request);
    const stage = this.stageFor(request);
    const started = performance.now();
    const key = this.options.cache ? this.cacheKeyOf(request) : '';
    const hit = await this.cachedResult(request, key, started);
    if (hit) return hit;
    if (this.authFailure) throw this.authFailure;
    // The first call of a process imports the SDK: that is not the provider's time, so it is not timed.
    await adapter.ready();
    const estimate = estimateTokens(request);

    let retries = 0;
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      let answer: ProviderAnswer | undefined;
      let failure: Failure | undefined;
      const release = await this.limiter.acquire(
        estimate.inputTokens + estimate.maxOutputTokens,
        callOptions.signal,
      );
      let outcome: AttemptOutcome = { kind: 'failed' };
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error('timeout'));
      }, this.options.limits.timeoutMs);
      const onCallerAbort = () => controller.abort(callOptions.signal?.reason);
      callOptions.signal?.addEventListener('abort', onCallerAbort, { once: true });
      try {
        answer = await adapter.send(request, model, controller.signal, this.options.limits.timeoutMs);
        outcome = { kind: 'answered', tokens: billedTokens(answer.usage) };
      } catch (error) {
        if (callOptions.signal?.aborted) throw callOptions.signal.reason ?? error;
        failure = classifyFailure(error, timedOut);
        outcome = limiterOutcome(failure);
      } finally {
        clearTimeout(timer);
        callOptions.signal?.removeEventListener('abort', onCallerAbort);
        release(outcome);
      }

      if (answer)
        return this.deliver(key, answer, {
          stage,
          started,
          retries,
          estimatedInputTokens: estimate.inputTokens,
        });

      const found = failure as Failure;
      const delay =
        found.retryAfterMs !== undefined
          ? found.retryAfterMs + Math.round((this.options.random ?? Math.random)() * RETRY_AFTER_JITTER_MS)
          : backoffDelayMs(attempt, this.options.random, this.options.baseBackoffMs);
      const giveUp = this.whyGiveUp(found, attempt, waited, delay);
      if (giveUp !== undefined) {
        const error = this.toError(found, model, attempt, giveUp);
        if (found.status === 401 || found.status === 403) this.authFailure = error;
        await this.recordFailure({ stage, model, started, retries, code: found.code });
        throw error;
      }
      // When the server names a time, every call sharing the budget waits for it, not just this one.
      if (found.retryAfterMs !== undefined) this.limiter.pauseUntil(Date.now() + found.retryAfterMs);
      await sleep(delay, callOptions.signal);
      waited += delay;
      retries += 1;
    }
  }

  /**
   * Caches and records an answer, online or from a batch, so both look the same to a caller;
   * `billed: false`: an answer already billed once (a batch's results read again).
   */
  async deliver(
    key: string,
    answer: ProviderAnswer,
    context: {
      stage: string;
      started: number;
      retries: number;
      estimatedInputTokens?: number;
      batchId?: string;
      billed?: boolean;
    },
  ): Promise<CompletionResult> {
    const { cache, judgeId } = this.options;
    const result = this.resultOf(answer, context.started, context.retries, false);
    if (cache)
      await cache.put({
        v: CACHE_FORMAT_VERSION,
        key,
        judgeId,
        model: answer.model,
        text: answer.text,
        usage: answer.usage,
        latencyMs: result.latencyMs,
        stopReason: answer.stopReason,
      });
    await this.answered(context.stage, result, {
      cacheHit: context.billed === false,
      batchId: context.batchId,
      estimatedInputTokens: context.estimatedInputTokens,
    });
    return result;
  }

  private resultOf(
    answer: Pick<CompletionResult, 'text' | 'usage' | 'model' | 'stopReason'>,
    started: number,
    retries: number,
    fromCache: boolean,
  ): CompletionResult {
    const { text, usage, model, stopReason } = answer;
    const latencyMs = performance.now() - started;
    return { text, usage, model, latencyMs, retries, fromCache, judgeId: this.judgeId, stopReason };
  }

  /** Undefined while another attempt is allowed; else the error message's suffix (which cap was reached). */
  private whyGiveUp(failure: Failure, attempt: number, waited: number, delay: number): string | undefined {
    const { maxAttempts, maxTotalWaitMs } = this.options.limits;
    if (!failure.retryable) return '';
    if (attempt >= maxAttempts) return ` after ${attempt} attempts`;
    if (waited + delay > maxTotalWaitMs)
      return ` after ${attempt} attempts (the next wait of ${Math.round(delay)} ms would pass the ${maxTotalWaitMs} ms wait budget)`;
    return undefined;
  }

  /** The ProviderError of a failure (also used for batch entries that got no answer). */
  toError(failure: Failure, model: string, attempts: number, suffix: string): ProviderError {
    const { adapter } = this.options;
    const auth = failure.status === 401 || failure.status === 403;
    const message = auth
      ? `${adapter.provider} rejected the API key (${failure.reason}): check ${adapter.keyVariable}`
      : `${adapter.provider} ${model}: ${failure.reason}${suffix}`;
    return new ProviderError(adapter.provider, this.redact(message), {
      code: failure.code,
      retryable: failure.retryable,
      ...(failure.status !== undefined ? { status: failure.status } : {}),
      details: { attempts, model, baseUrl: withoutCredentials(adapter.baseUrl) },
    });
  }

  /** The text with every secret (the API key) replaced by `[redacted]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.options.secrets)
      if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  }

  /** Appends a call's ledger line (judge and provider are this client's). */
  private async record(call: Omit<LedgerCall, 'judge' | 'provider'>): Promise<void> {
    await this.options.ledger?.appendCall({
      ...call,
      judge: this.judgeId,
      provider: this.options.adapter.provider,
    });
  }

  private answered(
    stage: string,
    result: CompletionResult,
    extra: Pick<LedgerCall, 'cacheHit' | 'batchId' | 'estimatedInputTokens'>,
  ) {
    const { model, usage, latencyMs, retries } = result;
    return this.record({ stage, model, usage, latencyMs, retries, ...extra });
  }

  /** The ledger line of a call that got no answer; a failing ledger never hides the call's error. */
  async recordFailure(line: {
    stage: string;
    model: string;
    started: number;
    retries: number;
    code: string;
    batchId?: string;
  }): Promise<void> {
    try {
      const { stage, model, retries, code, batchId } = line;
      const latencyMs = performance.now() - line.started;
      await this.record({ stage, model, latencyMs, retries, cacheHit: false, error: code, batchId });
    } catch {
      // The call's own error is what the caller needs; a ledger write failure must not replace it.
    }
  }
}

/** Every token the provider counted for an answer, as its rate limits count them. */
function billedTokens(usage: ProviderAnswer['usage']): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** What a failed attempt tells adaptive concurrency: 429 over a limit, 529/503 an overloaded server. */
function limiterOutcome(failure: Failure): AttemptOutcome {
  if (failure.code === 'quota') return { kind: 'failed' };
  if (failure.status === 429) return { kind: 'rate_limited' };
  if (failure.status === 529 || failure.status === 503) return { kind: 'overloaded' };
  return { kind: 'failed' };
}

/** A base URL may carry `user:password@`; messages, details and state files never show it. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '[unparseable base URL]';
  }
}
