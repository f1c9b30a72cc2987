import type { ProviderLimits } from '@xsb/core';

/** The limits used when config `providers.<name>` leaves a member unset. */
export const DEFAULT_PROVIDER_LIMITS = {
  maxConcurrency: 8,
  maxAttempts: 6,
  maxTotalWaitMs: 120_000,
  timeoutMs: 300_000,
} as const;

export type ResolvedLimits = Required<
  Pick<ProviderLimits, 'maxConcurrency' | 'maxAttempts' | 'maxTotalWaitMs' | 'timeoutMs'>
> &
  Pick<ProviderLimits, 'requestsPerMinute' | 'tokensPerMinute'>;

export function resolveLimits(limits: ProviderLimits | undefined): ResolvedLimits {
  return {
    maxConcurrency: limits?.maxConcurrency ?? DEFAULT_PROVIDER_LIMITS.maxConcurrency,
    maxAttempts: limits?.maxAttempts ?? DEFAULT_PROVIDER_LIMITS.maxAttempts,
    maxTotalWaitMs: limits?.maxTotalWaitMs ?? DEFAULT_PROVIDER_LIMITS.maxTotalWaitMs,
    timeoutMs: limits?.timeoutMs ?? DEFAULT_PROVIDER_LIMITS.timeoutMs,
    ...(limits?.requestsPerMinute ? { requestsPerMinute: limits.requestsPerMinute } : {}),
    ...(limits?.tokensPerMinute ? { tokensPerMinute: limits.tokensPerMinute } : {}),
  };
}

const BASE_BACKOFF_MS = 500;
const MAX_DELAY_MS = 30_000;

/** Exponential backoff with "equal jitter" (half fixed, half random; base 500 ms, cap 30 s). */
export function backoffDelayMs(
  retry: number,
  random: () => number = Math.random,
  baseMs = BASE_BACKOFF_MS,
): number {
  const ceiling = Math.min(MAX_DELAY_MS, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Statuses worth another attempt: timeouts, conflicts, rate limits, server errors, Anthropic 529. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

interface HeaderSource {
  get(name: string): string | null;
}

/** The wait a server asked for: `retry-after-ms` (OpenAI) over `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(
  headers: HeaderSource | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  return undefined;
}
