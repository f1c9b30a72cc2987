import { modelPriceSchema } from '@xsb/core';
import { z } from 'zod';

const count = z.number().int().min(0);
const usd = z.number().min(0).nullable();

/** USD of a row or of the totals three ways; null when the model has no price. */
export const costPlanCostsSchema = z.object({
  /** Every input token at the online input price: no prompt caching (PresentBench's way). */
  online: usd,
  /** Online, with the modelled prompt-cache reads and writes at their prices. */
  online_cached: usd,
  /** Through the provider's batch API (half of every online kind), with the same cache model. */
  batch: usd,
});

const tokenCounts = {
  /** Provider calls the run is expected to make (each billed; a ledger line with `cacheHit: false`). */
  calls: count,
  /** Calls the xsb disk cache will answer (a ledger line with `cacheHit: true`, nothing billed). */
  cached_calls: count,
  /** Work a finished artifact already holds: no call and no ledger line at all. */
  reused_calls: count,
  /** Prompt tokens of the provider calls: uncached input + cache reads + cache writes. */
  input_tokens: count,
  /** Of `input_tokens`, served from the provider's prompt cache (modelled). */
  cache_read_tokens: count,
  /** Of `input_tokens`, written to the provider's prompt cache (Anthropic; modelled). */
  cache_write_tokens: count,
  /** Answer tokens, estimated per stage (never reconciled to a bound). */
  output_tokens: count,
};

/** One (stage, judge) row of a cost plan. */
export const costPlanRowSchema = z.object({
  stage: z.string().min(1),
  judge: z.string().min(1),
  /** `anthropic`, `openai`, `replay`, `record` or `lexical`. */
  provider: z.string().min(1),
  /** The model the calls go to; null for replay, record and lexical. */
  model: z.string().nullable(),
  ...tokenCounts,
  cost_usd: costPlanCostsSchema,
  /**
   * True when calls and prompts are fully determined by inputs on disk; false when the row rests on
   * an assumption about earlier model answers (listed in `assumptions`).
   */
  exact: z.boolean(),
  assumptions: z.array(z.string()),
  /**
   * What the row takes as given about inputs on disk that the run it stands for would make anew, e.g.
   * "assumes the probe bank on disk; a model judge would build its own bank" for a bank the lexical
   * judge made. `exact` still says whether the calls follow from those inputs (the command as typed,
   * which `xsb usage --plan` checks); with an entry here the table shows the row as estimated.
   */
  input_assumptions: z.array(z.string()).default([]),
  /** Where the input-token figures come from: `estimator` or the provider's `count_endpoint`. */
  token_source: z.enum(['estimator', 'count_endpoint', 'mixed']),
});
export type CostPlanRow = z.infer<typeof costPlanRowSchema>;

/**
 * `xsb plan … --out PLAN.json`: what a stage command would call, with tokens and costs, computed
 * before any model call; `xsb usage --run R --plan PLAN.json` reconciles it with the run's ledger.
 */
export const costPlanSchema = z.object({
  format: z.literal('xsb-cost-plan/1'),
  created_at: z.string().min(1),
  /** The planned command as typed after `xsb plan`, e.g. `eval --run r1 --judge anthropic:…`. */
  command: z.string().min(1),
  /** The run whose usage ledger the calls go to (null for commands that keep no run ledger). */
  run: z.string().nullable(),
  /** Lines the run's ledger held when the plan was made: `xsb usage` reconciles only later lines. */
  ledger_lines_before: count,
  judge: z.string().min(1),
  estimator: z.object({
    /** `bytes/4` (xsb's `estimateTokens`), `anthropic count_tokens` or `openai responses/input_tokens`. */
    name: z.string().min(1),
    description: z.string().min(1),
  }),
  prices: z.object({
    /** The date of the default table (`DEFAULT_PRICES_AS_OF`). */
    as_of: z.string().min(1),
    /** `default`, or `config` when config `prices` set the price of the planned model. */
    source: z.enum(['default', 'config', 'none']),
    /** The price each planned model was costed at (USD per million tokens). */
    models: z.record(z.string(), modelPriceSchema),
  }),
  prompt_cache: z.object({
    /** Shortest prefix a provider caches, in tokens (Anthropic 1,024; OpenAI 1,024 automatic). */
    min_tokens: count,
    description: z.string().min(1),
  }),
  rows: z.array(costPlanRowSchema),
  totals: z.object({ ...tokenCounts, cost_usd: costPlanCostsSchema }),
  notes: z.array(z.string()),
});
export type CostPlan = z.infer<typeof costPlanSchema>;
