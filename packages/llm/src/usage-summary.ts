import {
  compareCodePoints,
  type ModelPrice,
  readJsonlAll,
  type UsageLedgerEntry,
  usageLedgerEntrySchema,
} from '@xsb/core';

/**
 * List prices in USD per million tokens, as published by the providers when this table was
 * written; cache reads default to the input price and cache writes to the input price when a
 * model lists none. Users override or extend it with config `prices` (keyed by model id or by
 * judge spec). A dated model id (`claude-sonnet-4-5-20250929`) matches its longest listed prefix.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
};

/** The price of a model: user prices by judge spec, then by model, then the defaults; longest prefix wins. */
export function priceFor(
  judge: string,
  model: string,
  prices: Readonly<Record<string, ModelPrice>> = {},
): ModelPrice | undefined {
  const direct = prices[judge] ?? prices[model];
  if (direct) return direct;
  for (const table of [prices, DEFAULT_PRICES]) {
    let best: string | undefined;
    for (const name of Object.keys(table))
      if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
    if (best !== undefined) return table[best];
  }
  return undefined;
}

export interface UsageTotals {
  /** Every ledger line. */
  calls: number;
  /** Answers served from the xsb disk cache: no provider call, no tokens billed. */
  cacheHits: number;
  failures: number;
  retries: number;
  /** Tokens of provider calls only (cache hits excluded). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Estimated USD; null when the model has no price. */
  costUsd: number | null;
}

export interface UsageSummaryRow extends UsageTotals {
  stage: string;
  judge: string;
  model: string;
}

export interface UsageSummary {
  rows: UsageSummaryRow[];
  /** Cost sums only the priced rows; `unpricedModels` lists the others. */
  totals: UsageTotals;
  unpricedModels: string[];
}

function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    cacheHits: 0,
    failures: 0,
    retries: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
  };
}

function costOf(totals: UsageTotals, price: ModelPrice): number {
  return (
    (totals.inputTokens * price.input +
      totals.outputTokens * price.output +
      totals.cacheReadTokens * (price.cacheRead ?? price.input) +
      totals.cacheWriteTokens * (price.cacheWrite ?? price.input)) /
    1_000_000
  );
}

/** Sums ledger lines per (stage, judge, model), sorted by those, with estimated costs. */
export function summarizeUsage(
  entries: Iterable<UsageLedgerEntry>,
  prices: Readonly<Record<string, ModelPrice>> = {},
): UsageSummary {
  const rows = new Map<string, UsageSummaryRow>();
  for (const entry of entries) {
    const id = JSON.stringify([entry.stage, entry.judge, entry.model]);
    let row = rows.get(id);
    if (!row) {
      row = { stage: entry.stage, judge: entry.judge, model: entry.model, ...emptyTotals() };
      rows.set(id, row);
    }
    row.calls += 1;
    row.retries += entry.retries;
    if (!entry.ok) row.failures += 1;
    if (entry.cacheHit) {
      row.cacheHits += 1;
      continue;
    }
    row.inputTokens += entry.inputTokens;
    row.outputTokens += entry.outputTokens;
    row.cacheReadTokens += entry.cacheReadTokens;
    row.cacheWriteTokens += entry.cacheWriteTokens;
  }
  const sorted = [...rows.values()].sort(
    (a, b) =>
      compareCodePoints(a.stage, b.stage) ||
      compareCodePoints(a.judge, b.judge) ||
      compareCodePoints(a.model, b.model),
  );
  const totals = emptyTotals();
  const unpriced = new Set<string>();
  for (const row of sorted) {
    const spent = row.inputTokens + row.outputTokens + row.cacheReadTokens + row.cacheWriteTokens;
    const price = priceFor(row.judge, row.model, prices);
    row.costUsd = spent === 0 ? 0 : price ? costOf(row, price) : null;
    if (row.costUsd === null) unpriced.add(row.model);
    for (const key of [
      'calls',
      'cacheHits',
      'failures',
      'retries',
      'inputTokens',
      'outputTokens',
      'cacheReadTokens',
      'cacheWriteTokens',
    ] as const)
      totals[key] += row[key];
    totals.costUsd = (totals.costUsd ?? 0) + (row.costUsd ?? 0);
  }
  return { rows: sorted, totals, unpricedModels: [...unpriced].sort() };
}

/** Reads and validates a ledger file, then summarizes it. */
export async function summarizeUsageLedger(
  file: string,
  prices: Readonly<Record<string, ModelPrice>> = {},
): Promise<UsageSummary> {
  return summarizeUsage(await readJsonlAll(file, usageLedgerEntrySchema), prices);
}
