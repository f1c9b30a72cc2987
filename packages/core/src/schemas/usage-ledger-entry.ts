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
});
export type UsageLedgerEntry = z.infer<typeof usageLedgerEntrySchema>;
