import type { BatchBackend } from './batch-backend';
import type { CompletionRequest, StopReason, TokenUsage } from './completion-types';
import type { ProviderName } from './parse-judge-spec';

export interface ProviderAnswer {
  text: string;
  model: string;
  usage: TokenUsage;
  stopReason: StopReason;
}

/** One provider behind the common request shape: a single attempt, no retries (the caller owns those). */
export interface ProviderAdapter {
  readonly provider: ProviderName;
  /** The environment variable that holds the key, named in authentication errors. */
  readonly keyVariable: string;
  readonly baseUrl: string;
  /** The provider's batch API over the same SDK client. */
  readonly batch: BatchBackend;
  send(
    request: CompletionRequest,
    model: string,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ProviderAnswer>;
}

/** A 2xx answer whose body is not a usable completion (empty, truncated, not JSON). Retried. */
export class MalformedAnswerError extends Error {}
