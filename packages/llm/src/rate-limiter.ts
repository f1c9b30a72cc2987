/**
 * Admission control for one provider: at most `maxConcurrency` calls in flight, and optional
 * requests-per-minute and tokens-per-minute budgets as token buckets refilled continuously
 * (a full minute's budget may be spent at once, then calls wait for refill). A 429 can pause
 * every caller until the server's retry time, so one rate-limit answer does not trigger a storm.
 */
export class RateLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private requestTokens: number;
  private budgetTokens: number;
  private lastRefill = Date.now();
  private pausedUntil = 0;

  constructor(
    private readonly maxConcurrency: number,
    private readonly requestsPerMinute?: number,
    private readonly tokensPerMinute?: number,
  ) {
    this.requestTokens = requestsPerMinute ?? 0;
    this.budgetTokens = tokensPerMinute ?? 0;
  }

  /** Waits for a slot and for budget; returns the release function. */
  async acquire(estimatedTokens: number, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active >= this.maxConcurrency) await this.waitForSlot(signal);
    else this.active += 1;
    try {
      await this.waitForBudget(estimatedTokens, signal);
    } catch (error) {
      this.release();
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release();
    };
  }

  /** Queues for a slot; an abort leaves the queue so the slot is never handed to a dead caller. */
  private waitForSlot(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(grant);
        if (index !== -1) this.waiting.splice(index, 1);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Holds every new attempt back until `until` (epoch ms). */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `active` stays the same.
    if (next) next();
    else this.active -= 1;
  }

  private refill(now: number): void {
    const elapsed = now - this.lastRefill;
    this.lastRefill = now;
    if (this.requestsPerMinute)
      this.requestTokens = Math.min(
        this.requestsPerMinute,
        this.requestTokens + (elapsed * this.requestsPerMinute) / 60_000,
      );
    if (this.tokensPerMinute)
      this.budgetTokens = Math.min(
        this.tokensPerMinute,
        this.budgetTokens + (elapsed * this.tokensPerMinute) / 60_000,
      );
  }

  private async waitForBudget(estimatedTokens: number, signal?: AbortSignal): Promise<void> {
    // A request larger than the whole per-minute budget would never fit: it waits for a full bucket.
    const tokensNeeded = this.tokensPerMinute ? Math.min(estimatedTokens, this.tokensPerMinute) : 0;
    for (;;) {
      signal?.throwIfAborted();
      const now = Date.now();
      this.refill(now);
      let waitMs = Math.max(0, this.pausedUntil - now);
      if (this.requestsPerMinute && this.requestTokens < 1)
        waitMs = Math.max(waitMs, ((1 - this.requestTokens) * 60_000) / this.requestsPerMinute);
      if (this.tokensPerMinute && this.budgetTokens < tokensNeeded)
        waitMs = Math.max(waitMs, ((tokensNeeded - this.budgetTokens) * 60_000) / this.tokensPerMinute);
      if (waitMs <= 0) {
        if (this.requestsPerMinute) this.requestTokens -= 1;
        if (this.tokensPerMinute) this.budgetTokens -= tokensNeeded;
        return;
      }
      await sleep(Math.ceil(waitMs), signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const shared = new Map<string, RateLimiter>();

/**
 * The limiter of one account at one endpoint with one set of limits, shared by every client of the
 * process that has them, so a stage that builds several clients still keeps the provider's budget.
 */
export function sharedRateLimiter(
  account: string,
  limits: { maxConcurrency: number; requestsPerMinute?: number; tokensPerMinute?: number },
): RateLimiter {
  const id = JSON.stringify([
    account,
    limits.maxConcurrency,
    limits.requestsPerMinute ?? 0,
    limits.tokensPerMinute ?? 0,
  ]);
  let limiter = shared.get(id);
  if (!limiter) {
    limiter = new RateLimiter(limits.maxConcurrency, limits.requestsPerMinute, limits.tokensPerMinute);
    shared.set(id, limiter);
  }
  return limiter;
}
