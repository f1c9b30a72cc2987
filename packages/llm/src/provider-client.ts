import { hashBytes, ProviderError } from '@xsb/core';
import { classifyFailure, type Failure } from './classify-failure';
import type { CompleteOptions, CompletionRequest, CompletionResult, LlmClient } from './completion-types';
import type { DiskCache } from './disk-cache';
import { estimateRequestTokens } from './estimate-request-tokens';
import type { ProviderAdapter, ProviderAnswer } from './provider-adapter';
import { type RateLimiter, sharedRateLimiter, sleep } from './rate-limiter';
import { CACHE_FORMAT_VERSION, cacheKeyFor } from './request-key';
import { backoffDelayMs, type ResolvedLimits } from './retry-policy';
import type { UsageLedger } from './usage-ledger';

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

/**
 * A provider behind the whole policy: disk cache, admission (concurrency, RPM, TPM), one attempt
 * at a time through the SDK with its own retries off, backoff and retry-after, caps on attempts and
 * total wait, and one ledger line per call.
 */
export class ProviderClient implements LlmClient {
  readonly judgeId: string;
  private readonly limiter: RateLimiter;
  /** After a 401/403 every later call fails at once: the key will not start working mid-run. */
  private authFailure: ProviderError | undefined;

  constructor(private readonly options: ProviderClientOptions) {
    this.judgeId = options.judgeId;
    this.limiter = sharedRateLimiter(
      `${options.adapter.provider}|${options.adapter.baseUrl}|${hashBytes(options.secrets.join('\u0000')).slice(0, 16)}`,
      options.limits,
    );
  }

  async complete(request: CompletionRequest, callOptions: CompleteOptions = {}): Promise<CompletionResult> {
    const { adapter, cache, judgeId } = this.options;
    const model = request.model ?? this.options.model;
    const stage = request.stage ?? this.options.stage;
    const started = performance.now();
    const key = cache
      ? cacheKeyFor({ provider: adapter.provider, model, baseUrl: adapter.baseUrl, request })
      : '';
    if (cache && !this.options.refresh) {
      const hit = await cache.get(key);
      if (hit) {
        const result: CompletionResult = {
          text: hit.text,
          usage: hit.usage,
          model: hit.model,
          latencyMs: performance.now() - started,
          retries: 0,
          fromCache: true,
          judgeId,
          ...(hit.stopReason ? { stopReason: hit.stopReason } : {}),
        };
        await this.record(stage, result, true);
        return result;
      }
    }
    if (this.authFailure) throw this.authFailure;

    let retries = 0;
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      let answer: ProviderAnswer | undefined;
      let failure: Failure | undefined;
      const release = await this.limiter.acquire(estimateRequestTokens(request), callOptions.signal);
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
      } catch (error) {
        if (callOptions.signal?.aborted) throw callOptions.signal.reason ?? error;
        failure = classifyFailure(error, timedOut);
      } finally {
        clearTimeout(timer);
        callOptions.signal?.removeEventListener('abort', onCallerAbort);
        release();
      }

      if (answer) {
        const result: CompletionResult = {
          text: answer.text,
          usage: answer.usage,
          model: answer.model,
          latencyMs: performance.now() - started,
          retries,
          fromCache: false,
          judgeId,
          stopReason: answer.stopReason,
        };
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
        await this.record(stage, result, false);
        return result;
      }

      const found = failure as Failure;
      const delay =
        found.retryAfterMs !== undefined
          ? found.retryAfterMs + Math.round((this.options.random ?? Math.random)() * RETRY_AFTER_JITTER_MS)
          : backoffDelayMs(attempt, this.options.random, this.options.baseBackoffMs);
      const giveUp = this.whyGiveUp(found, attempt, waited, delay);
      if (giveUp !== undefined) {
        const error = this.toError(found, model, attempt, giveUp);
        if (found.status === 401 || found.status === 403) this.authFailure = error;
        await this.recordFailure(stage, model, started, retries, found.code);
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
   * Undefined while another attempt is allowed; otherwise the suffix the error message gets: empty
   * for a failure that is not worth retrying, else which cap (attempts or total wait) was reached.
   */
  private whyGiveUp(failure: Failure, attempt: number, waited: number, delay: number): string | undefined {
    const { maxAttempts, maxTotalWaitMs } = this.options.limits;
    if (!failure.retryable) return '';
    if (attempt >= maxAttempts) return ` after ${attempt} attempts`;
    if (waited + delay > maxTotalWaitMs)
      return ` after ${attempt} attempts (the next wait of ${Math.round(delay)} ms would pass the ${maxTotalWaitMs} ms wait budget)`;
    return undefined;
  }

  private toError(failure: Failure, model: string, attempts: number, suffix: string): ProviderError {
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

  private redact(text: string): string {
    let out = text;
    for (const secret of this.options.secrets)
      if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  }

  private async record(stage: string, result: CompletionResult, cacheHit: boolean): Promise<void> {
    await this.options.ledger?.appendCall({
      stage,
      judge: this.judgeId,
      provider: this.options.adapter.provider,
      model: result.model,
      usage: result.usage,
      latencyMs: result.latencyMs,
      retries: result.retries,
      cacheHit,
    });
  }

  private async recordFailure(stage: string, model: string, started: number, retries: number, code: string) {
    try {
      await this.options.ledger?.appendCall({
        stage,
        judge: this.judgeId,
        provider: this.options.adapter.provider,
        model,
        latencyMs: performance.now() - started,
        retries,
        cacheHit: false,
        error: code,
      });
    } catch {
      // The call's own error is what the caller needs; a ledger write failure must not replace it.
    }
  }
}

/** A base URL may carry `user:password@`; messages and details never show it. */
function withoutCredentials(url: string): string {
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
