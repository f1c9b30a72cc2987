import { z } from 'zod';

const tokens = z.number().int().min(0);

/**
 * One line of a run's usage ledger (`runs/<run>/usage_ledger.jsonl`): one model call, whether it reached the
 * provider, came from the disk cache or failed. Never holds prompts, answers or keys.
 */
export const usageLedgerEntrySchema = z.looseObject({
  /** ISO time the call finished. */
  time: z.string().min(1),
  stage: z.string().min(1),
  /** The judge spec, e.g. `anthropic:claude-sonnet-4-5`. */
  judge: z.string().min(1),
  provider: z.string().min(1),
  /** The model the server reported (or the requested one when the call failed). */
  model: z.string().min(1),
  inputTokens: tokens,
  outputTokens: tokens,
  cacheReadTokens: tokens,
  cacheWriteTokens: tokens,
  latencyMs: z.number().min(0),
  retries: z.number().int().min(0),
  /** True when the answer came from the xsb disk cache (no provider call, no cost). */
  cacheHit: z.boolean(),
  ok: z.boolean(),
  /** The error code of a failed call (`rate_limited`, `auth`, `timeout`, ...). */
  error: z.string().optional(),
  /** True when the call went through the provider's batch API (billed at the batch price). */
  batch: z.boolean().optional(),
  /** The provider's batch id (`msgbatch_…`, `batch_…`) of a batch call. */
  batchId: z.string().min(1).optional(),
  /**
   * Estimated USD of this line by the price table in force when it was written (batch price for a
   * batch call, 0 for a cache hit); absent when the model has no price.
   */
  costUsd: z.number().min(0).optional(),
  /** The request's input tokens as estimated before the call, to check estimates against `inputTokens`. */
  estimatedInputTokens: tokens.optional(),
});
export type UsageLedgerEntry = z.infer<typeof usageLedgerEntrySchema>;
