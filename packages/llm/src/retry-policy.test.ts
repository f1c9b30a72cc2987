import { describe, expect, it } from 'vitest';
import { backoffDelayMs, isRetryableStatus, retryAfterMs } from './retry-policy';

const headers = (values: Record<string, string>) => new Headers(values);

describe('retryAfterMs', () => {
  it('reads retry-after-ms before retry-after', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
  });
  it('reads retry-after in seconds', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
  });
  it('reads retry-after as an HTTP date', () => {
    const now = Date.parse('Sun, 29 Nov 2026 12:00:00 GMT');
    expect(retryAfterMs(headers({ 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }), now)).toBe(30_000);
    expect(retryAfterMs(headers({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('backoffDelayMs', () => {
  it('doubles per retry with jitter in the upper half, capped at 30 s', () => {
    expect(backoffDelayMs(1, () => 0)).toBe(250);
    expect(backoffDelayMs(1, () => 1)).toBe(500);
    expect(backoffDelayMs(3, () => 0)).toBe(1000);
    expect(backoffDelayMs(3, () => 1)).toBe(2000);
    expect(backoffDelayMs(20, () => 1)).toBe(30_000);
  });
});

describe('isRetryableStatus', () => {
  it('retries timeouts, conflicts, rate limits and server errors only', () => {
    expect([408, 409, 429, 500, 502, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });
});
