import type { ErrorReply, FakeProvider } from './fake-http';

/** Limits the fake server enforces on online calls, as a provider account would. */
export interface FakeRateLimits {
  requestsPerMinute?: number;
  /** Charged the prompt's tokens plus `max_tokens` on arrival, the unused answer budget given back at the end. */
  tokensPerMinute?: number;
  /**
   * How much refill the buckets hold, in ms (default 60,000: a whole minute's budget, as the
   * providers' token buckets). Shorter is stricter: a provider may enforce "60 RPM" as 1 a second.
   */
  burstMs?: number;
  /** More online calls in flight than this are refused: Anthropic 529 `overloaded_error`, OpenAI 503. */
  maxInFlight?: number;
}

export interface FakeRateStats {
  /** Calls let through. */
  accepted: number;
  /** Calls refused with 429 for the RPM or TPM budget. */
  rateLimited: number;
  /** Calls refused as overloaded (529 / 503). */
  overloaded: number;
  /** Tokens the accepted calls really cost (prompt + answer). */
  acceptedTokens: number;
  peakInFlight: number;
  /** When the first call was accepted (epoch ms), for goodput over a run. */
  firstAcceptedAt: number | undefined;
}

export function emptyRateStats(): FakeRateStats {
  return {
    accepted: 0,
    rateLimited: 0,
    overloaded: 0,
    acceptedTokens: 0,
    peakInFlight: 0,
    firstAcceptedAt: undefined,
  };
}

/** A call let in: settle it with the answer's output tokens (or nothing when it failed). */
export type RateTicket = (outputTokens?: number) => void;

/**
 * Token buckets for requests and tokens, refilled continuously, holding `burstMs` of refill.
 * A request is admitted when a bucket holds at least its cost (or is full, for a request larger
 * than the bucket), then the cost is taken; refusals cost nothing and name the wait in
 * `retry-after` (Anthropic: whole seconds, as it sends) and `retry-after-ms` (OpenAI).
 */
export class FakeRateEnforcer {
  readonly stats: FakeRateStats = emptyRateStats();
  private inFlight = 0;
  private requests: number;
  private tokens: number;
  private last = Date.now();

  constructor(private readonly limits: FakeRateLimits) {
    this.requests = this.capacity(limits.requestsPerMinute);
    this.tokens = this.capacity(limits.tokensPerMinute);
  }

  private capacity(perMinute: number | undefined): number {
    if (!perMinute) return 0;
    return Math.max(1, (perMinute * (this.limits.burstMs ?? 60_000)) / 60_000);
  }

  private refill(now: number): void {
    const elapsed = now - this.last;
    this.last = now;
    const { requestsPerMinute: rpm, tokensPerMinute: tpm } = this.limits;
    if (rpm) this.requests = Math.min(this.capacity(rpm), this.requests + (elapsed * rpm) / 60_000);
    if (tpm) this.tokens = Math.min(this.capacity(tpm), this.tokens + (elapsed * tpm) / 60_000);
  }

  /** Lets the call in (a ticket) or refuses it (the error to send). */
  admit(provider: FakeProvider, promptTokens: number, answerBudget: number): RateTicket | ErrorReply {
    const { requestsPerMinute: rpm, tokensPerMinute: tpm, maxInFlight } = this.limits;
    if (maxInFlight !== undefined && this.inFlight >= maxInFlight) {
      this.stats.overloaded += 1;
      return provider === 'anthropic'
        ? { status: 529, message: 'Overloaded' }
        : { status: 503, message: 'The server is overloaded or not ready yet.' };
    }
    const now = Date.now();
    this.refill(now);
    const cost = promptTokens + answerBudget;
    const tokensNeeded = tpm ? Math.min(cost, this.capacity(tpm)) : 0;
    let waitMs = 0;
    if (rpm && this.requests < 1) waitMs = ((1 - this.requests) * 60_000) / rpm;
    if (tpm && this.tokens < tokensNeeded)
      waitMs = Math.max(waitMs, ((tokensNeeded - this.tokens) * 60_000) / tpm);
    if (waitMs > 0) {
      this.stats.rateLimited += 1;
      const which = rpm && this.requests < 1 ? 'requests' : 'tokens';
      return {
        status: 429,
        message: `This request would exceed the rate limit for ${which} per minute.`,
        retryAfter: String(Math.max(1, Math.ceil(waitMs / 1000))),
        ...(provider === 'openai' ? { retryAfterMs: Math.ceil(waitMs) } : {}),
      };
    }
    if (rpm) this.requests -= 1;
    if (tpm) this.tokens -= cost;
    this.stats.accepted += 1;
    this.stats.firstAcceptedAt ??= now;
    this.inFlight += 1;
    this.stats.peakInFlight = Math.max(this.stats.peakInFlight, this.inFlight);
    let settled = false;
    return (outputTokens) => {
      if (settled) return;
      settled = true;
      this.inFlight -= 1;
      if (outputTokens === undefined) return;
      this.stats.acceptedTokens += promptTokens + outputTokens;
      if (tpm) {
        this.refill(Date.now());
        this.tokens = Math.min(this.capacity(tpm), this.tokens + answerBudget - outputTokens);
      }
    };
  }
}
