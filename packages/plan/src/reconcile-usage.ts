import type { ModelPrice } from '@xsb/core';
import { plural } from '@xsb/core';
import type { UsageLedgerEntry } from '@xsb/llm';
import { summarizeUsage } from '@xsb/llm';
import type { CostPlan } from './schemas/cost-plan';

/** Input tokens of an exact row must be within this share of what the provider billed. */
export const INPUT_TOKEN_TOLERANCE = 0.1;

export interface UsageFigures {
  /** Provider calls (ledger lines that were not disk-cache hits; failed calls included). */
  calls: number;
  /** Disk-cache answers. */
  cached_calls: number;
  input_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

export interface ReconciledRow {
  stage: string;
  judge: string;
  exact: boolean;
  planned: UsageFigures;
  actual: UsageFigures & { failed_calls: number; batch_calls: number };
  /** (planned − actual) / actual input tokens; null when nothing was billed. */
  input_error: number | null;
  /** Why the row fails the check (exact rows only; estimated rows are shown, never failed). */
  problems: string[];
}

export interface UsageReconciliation {
  rows: ReconciledRow[];
  ok: boolean;
  /** Lines of the ledger the plan did not foresee, or other run-wide findings. */
  notes: string[];
}

const EMPTY: UsageFigures = {
  calls: 0,
  cached_calls: 0,
  input_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  cost_usd: 0,
};

/**
 * Plan against ledger, per (stage, judge): calls must match exactly and input tokens (uncached +
 * cache reads + writes) lie within {@link INPUT_TOKEN_TOLERANCE} of the billed ones for every
 * exact row; estimated rows show their error without a bound; output tokens are shown, never
 * bounded. Planned cost is the batch figure when the stage's calls went through a batch API, else
 * the online figure with prompt caching. A stage with calls the plan did not list fails.
 */
export function reconcileUsage(
  plan: CostPlan,
  entries: Iterable<UsageLedgerEntry>,
  prices: Readonly<Record<string, ModelPrice>> = {},
  tolerance = INPUT_TOKEN_TOLERANCE,
): UsageReconciliation {
  const summary = summarizeUsage(entries, prices);
  const actual = new Map<string, ReconciledRow['actual']>();
  for (const row of summary.rows) {
    const id = `${row.stage}\u0000${row.judge}`;
    const sum = actual.get(id) ?? { ...EMPTY, failed_calls: 0, batch_calls: 0 };
    sum.calls += row.calls - row.cacheHits;
    sum.cached_calls += row.cacheHits;
    sum.failed_calls += row.failures;
    sum.batch_calls += row.batchCalls;
    sum.input_tokens += row.inputTokens + row.cacheReadTokens + row.cacheWriteTokens;
    sum.cache_read_tokens += row.cacheReadTokens;
    sum.cache_write_tokens += row.cacheWriteTokens;
    sum.output_tokens += row.outputTokens;
    sum.cost_usd = sum.cost_usd === null || row.costUsd === null ? null : sum.cost_usd + row.costUsd;
    actual.set(id, sum);
  }
  const rows: ReconciledRow[] = [];
  const notes: string[] = [];
  for (const planned of plan.rows) {
    const id = `${planned.stage}\u0000${planned.judge}`;
    const got = actual.get(id) ?? { ...EMPTY, failed_calls: 0, batch_calls: 0 };
    actual.delete(id);
    const batch = got.batch_calls > 0;
    const figures: UsageFigures = {
      calls: planned.calls,
      cached_calls: planned.cached_calls,
      input_tokens: planned.input_tokens,
      cache_read_tokens: planned.cache_read_tokens,
      cache_write_tokens: planned.cache_write_tokens,
      output_tokens: planned.output_tokens,
      cost_usd: batch ? planned.cost_usd.batch : planned.cost_usd.online_cached,
    };
    const inputError =
      got.input_tokens > 0 ? (planned.input_tokens - got.input_tokens) / got.input_tokens : null;
    const problems: string[] = [];
    if (planned.exact) {
      if (got.calls !== planned.calls)
        problems.push(`${got.calls} provider calls where the plan has ${planned.calls}`);
      if (got.cached_calls !== planned.cached_calls)
        problems.push(`${got.cached_calls} disk-cache answers where the plan has ${planned.cached_calls}`);
      if (inputError !== null && Math.abs(inputError) > tolerance)
        problems.push(
          `input tokens off by ${(inputError * 100).toFixed(1)} % (more than ${(tolerance * 100).toFixed(0)} %)`,
        );
      else if (inputError === null && planned.input_tokens > 0 && got.calls > 0)
        problems.push(`${planned.input_tokens} input tokens planned, none billed`);
    }
    if (got.failed_calls > 0)
      notes.push(`${planned.stage}: ${plural(got.failed_calls, 'call')} failed in the run`);
    rows.push({
      stage: planned.stage,
      judge: planned.judge,
      exact: planned.exact,
      planned: figures,
      actual: got,
      input_error: inputError,
      problems,
    });
  }
  for (const [id, got] of actual) {
    const [stage, judge] = id.split('\u0000') as [string, string];
    rows.push({
      stage,
      judge,
      exact: true,
      planned: { ...EMPTY },
      actual: got,
      input_error: null,
      problems: [`${plural(got.calls + got.cached_calls, 'ledger line')} of a stage the plan does not list`],
    });
  }
  return { rows, ok: rows.every((row) => row.problems.length === 0), notes };
}
