import { compareCodePoints, type ModelPrice, readJsonlAll } from '@xsb/core';
import { costOfUsage, priceFor } from './price-table';
import { type UsageLedgerEntry, usageLedgerEntrySchema } from './schemas/usage-ledger-entry';

export interface UsageTotals {
  /** Every ledger line. */
  calls: number;
  /** Answers served from the xsb disk cache: no provider call, no tokens billed. */
  cacheHits: number;
  /** Calls answered through a provider batch API (billed at the batch price). */
  batchCalls: number;
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

const COUNTS = [
  'calls',
  'cacheHits',
  'batchCalls',
  'failures',
  'retries',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
] as const;

function emptyTotals(): UsageTotals {
  return { ...Object.fromEntries(COUNTS.map((key) => [key, 0])), costUsd: 0 } as UsageTotals;
}

/** Sums ledger lines per (stage, judge, model) at today's prices, so a corrected price table reprices old ledgers. */
export function summarizeUsage(
  entries: Iterable<UsageLedgerEntry>,
  prices: Readonly<Record<string, ModelPrice>> = {},
): UsageSummary {
  const rows = new Map<string, UsageSummaryRow>();
  const unpriced = new Set<string>();
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
    if (entry.batch) row.batchCalls += 1;
    row.inputTokens += entry.inputTokens;
    row.outputTokens += entry.outputTokens;
    row.cacheReadTokens += entry.cacheReadTokens;
    row.cacheWriteTokens += entry.cacheWriteTokens;
    const spent = entry.inputTokens + entry.outputTokens + entry.cacheReadTokens + entry.cacheWriteTokens;
    if (spent === 0) continue;
    const price = priceFor(entry.judge, entry.model, prices);
    if (!price) {
      row.costUsd = null;
      unpriced.add(entry.model);
    } else if (row.costUsd !== null) row.costUsd += costOfUsage(entry, price, entry.batch === true);
  }
  const sorted = [...rows.values()].sort(
    (a, b) =>
      compareCodePoints(a.stage, b.stage) ||
      compareCodePoints(a.judge, b.judge) ||
      compareCodePoints(a.model, b.model),
  );
  const totals = emptyTotals();
  for (const row of sorted) {
    for (const key of COUNTS) totals[key] += row[key];
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
