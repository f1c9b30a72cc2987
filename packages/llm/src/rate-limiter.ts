/** How an attempt ended; an answer reports the tokens it really spent, to correct the TPM estimate. */
export type AttemptOutcome =
  | { kind: 'answered'; tokens: number }
  | { kind: 'rate_limited' }
  | { kind: 'overloaded' }
  | { kind: 'failed' };

/** Gives the slot back; the outcome (once, optional) feeds adaptive concurrency and the budgets. */
export type ReleaseSlot = (outcome?: AttemptOutcome) => void;

export interface LimiterSnapshot {
  /** The adaptive concurrency limit now in force (1 … maxConcurrency). */
  concurrencyLimit: number;
  maxConcurrency: number;
  active: number;
  waiting: number;
  /** How many times the limit was halved. */
  decreases: number;
}

/**
 * Admission control for one provider account: an AIMD concurrency limit (halved on 429/529/503 once
 * per wave) and RPM/TPM token buckets. A 429 shrinks the buckets to one second of refill: the provider
 * enforces its limit over a shorter window than the minute the client allowed itself to burst.
 */
export class RateLimiter {
  private active = 0;
  private limit: number;
  private epoch = 0;
  private decreases = 0;
  private answeredInRow = 0;
  private readonly waiting: Array<() => void> = [];
  private requestTokens: number;
  private budgetTokens: number;
  /** How much each bucket holds: a whole minute, until a 429 shows a shorter window (then 1 s). */
  private requestCapacity: number;
  private tokenCapacity: number;
  private lastRefill = Date.now();
  private pausedUntil = 0;
  /** Resolved (and replaced) when an answer gives tokens back, so budget waiters look again. */
  private refunded = signalOnce();

  constructor(
    private readonly maxConcurrency: number,
    private readonly requestsPerMinute?: number,
    private readonly tokensPerMinute?: number,
  ) {
    this.limit = maxConcurrency;
    this.requestTokens = requestsPerMinute ?? 0;
    this.budgetTokens = tokensPerMinute ?? 0;
    this.requestCapacity = requestsPerMinute ?? 0;
    this.tokenCapacity = tokensPerMinute ?? 0;
  }

  snapshot(): LimiterSnapshot {
    return {
      concurrencyLimit: this.limit,
      maxConcurrency: this.maxConcurrency,
      active: this.active,
      waiting: this.waiting.length,
      decreases: this.decreases,
    };
  }

  /** Waits for a slot and for budget; returns the release function. */
  async acquire(estimatedTokens: number, signal?: AbortSignal): Promise<ReleaseSlot> {
    signal?.throwIfAborted();
    if (this.active >= this.limit) await this.waitForSlot(signal);
    else this.active += 1;
    const epoch = this.epoch;
    let charged: number;
    try {
      charged = await this.waitForBudget(estimatedTokens, signal);
    } catch (error) {
      this.release();
      throw error;
    }
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      if (outcome) this.settle(outcome, epoch, charged);
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

  private settle(outcome: AttemptOutcome, epoch: number, charged: number): void {
    switch (outcome.kind) {
      case 'answered':
        if (this.tokensPerMinute) {
          const refund = charged - outcome.tokens;
          this.budgetTokens = Math.min(this.tokenCapacity, this.budgetTokens + refund);
          if (refund > 0) {
            this.refunded.fire();
            this.refunded = signalOnce();
          }
        }
        this.answeredInRow += 1;
        if (this.answeredInRow >= this.limit && this.limit < this.maxConcurrency) {
          this.limit += 1;
          this.answeredInRow = 0;
        }
        return;
      case 'rate_limited':
        // From now on the buckets hold one second of refill (see the class comment), and start empty.
        if (this.requestsPerMinute) this.requestCapacity = Math.max(1, this.requestsPerMinute / 60);
        if (this.tokensPerMinute) this.tokenCapacity = this.tokensPerMinute / 60;
        this.requestTokens = Math.min(this.requestTokens, 0);
        this.budgetTokens = Math.min(this.budgetTokens, 0);
        this.decrease(epoch);
        return;
      case 'overloaded':
        this.decrease(epoch);
        return;
      case 'failed':
        return;
    }
  }

  private decrease(epoch: number): void {
    this.answeredInRow = 0;
    if (epoch !== this.epoch) return;
    this.epoch += 1;
    this.decreases += 1;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
  }

  private release(): void {
    this.active -= 1;
    while (this.active < this.limit && this.waiting.length > 0) {
      this.active += 1;
      this.waiting.shift()?.();
    }
  }

  private refill(now: number): void {
    const elapsed = now - this.lastRefill;
    this.lastRefill = now;
    if (this.requestsPerMinute)
      this.requestTokens = Math.min(
        this.requestCapacity,
        this.requestTokens + (elapsed * this.requestsPerMinute) / 60_000,
      );
    if (this.tokensPerMinute)
      this.budgetTokens = Math.min(
        this.tokenCapacity,
        this.budgetTokens + (elapsed * this.tokensPerMinute) / 60_000,
      );
  }

  /** Sleeps `ms`, or less when an answer gives tokens back first (a refund can beat the refill). */
  private waitForRoom(ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.tokensPerMinute) return sleep(ms, signal);
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(done, ms);
      void this.refunded.promise.then(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Waits for budget and charges it; a request larger than a bucket goes once it is full, leaving it in debt. */
  private async waitForBudget(estimatedTokens: number, signal?: AbortSignal): Promise<number> {
    const charge = this.tokensPerMinute ? estimatedTokens : 0;
    for (;;) {
      // Each bucket keeps a margin of MARGIN_MS of refill: the provider counts a request when it
      // arrives, a little later than this client did, and its bucket may have been full meanwhile.
      const requestsNeeded = Math.min(
        1 + ((this.requestsPerMinute ?? 0) * MARGIN_MS) / 60_000,
        this.requestCapacity,
      );
      const tokensNeeded = Math.min(
        charge + ((this.tokensPerMinute ?? 0) * MARGIN_MS) / 60_000,
        this.tokenCapacity,
      );
      signal?.throwIfAborted();
      const now = Date.now();
      this.refill(now);
      let waitMs = Math.max(0, this.pausedUntil - now);
      if (this.requestsPerMinute && this.requestTokens < requestsNeeded)
        waitMs = Math.max(waitMs, ((requestsNeeded - this.requestTokens) * 60_000) / this.requestsPerMinute);
      if (this.tokensPerMinute && this.budgetTokens < tokensNeeded)
        waitMs = Math.max(waitMs, ((tokensNeeded - this.budgetTokens) * 60_000) / this.tokensPerMinute);
      if (waitMs <= 0) {
        if (this.requestsPerMinute) this.requestTokens -= 1;
        if (this.tokensPerMinute) this.budgetTokens -= charge;
        return charge;
      }
      await this.waitForRoom(Math.ceil(waitMs), signal);
    }
  }
}

/** The refill each bucket keeps in hand (see waitForBudget). */
const MARGIN_MS = 100;

/** A promise and the function that resolves it (Node 20 has no `Promise.withResolvers`). */
function signalOnce(): { promise: Promise<void>; fire: () => void } {
  let fire: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
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

/** One limiter per account, endpoint and limits in the process, so budget and adaptive limit are shared. */
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
