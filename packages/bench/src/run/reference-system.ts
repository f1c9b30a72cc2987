import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type RunLayout, readJson, UsageError } from '@xsb/core';
import { deckBatchSummarySchema } from '@xsb/decks';
import { systemIdFor } from '@xsb/metrics';

/** Where the reference came from: `--reference`, the first of `--systems`, the run sheet, or sorted ids. */
export type ReferenceFrom = 'flag' | 'systems' | 'run_sheet' | 'sorted';

/** `batch_summary.json` and its per-shard siblings (`batch_summary.shard-<i>-of-<n>.json`). */
const BATCH_SUMMARY = /^batch_summary(\.shard-\d+-of-\d+)?\.json$/;

/**
 * The systems (`<generator>__<condition>`) of a pipeline run in the order its run sheet lists them:
 * the rows `xsb decks` recorded in `runs/<run>/decks/batch_summary*.json`, by sheet line. Imported
 * systems have no sheet row; a run without a batch summary has no order (empty).
 */
export async function runSheetSystemOrder(layout: RunLayout, run: string): Promise<string[]> {
  const root = layout.decksRoot(run);
  if (!existsSync(root)) return [];
  const files = (await readdir(root)).filter((name) => BATCH_SUMMARY.test(name)).sort();
  const rows: Array<{ system: string; line: number }> = [];
  for (const file of files) {
    const summary = await readJson(join(root, file), deckBatchSummarySchema);
    for (const row of summary.rows)
      rows.push({
        system: systemIdFor(row.system, row.condition),
        line: row.line ?? Number.MAX_SAFE_INTEGER,
      });
  }
  rows.sort((a, b) => a.line - b.line);
  return [...new Set(rows.map((row) => row.system))];
}

/**
 * The system every other is paired against: `--reference` when given (one of the compared systems),
 * else the first of `--systems` as the user ordered them, else the run sheet's first compared system,
 * else the first in sorted order. The sorted order is only the last resort: alphabetically first is
 * often an imported deck, not the system a user compares against.
 */
export function chooseReference(input: {
  reference?: string | undefined;
  systemsFlag?: readonly string[] | undefined;
  systems: readonly string[];
  sheetOrder: readonly string[];
}): { reference: string | null; from: ReferenceFrom | null } {
  const { systems } = input;
  if (input.reference !== undefined) {
    if (!systems.includes(input.reference))
      throw new UsageError(
        `reference system ${input.reference} is not one of the compared systems (${systems.join(', ')})`,
      );
    return { reference: input.reference, from: 'flag' };
  }
  if (input.systemsFlag && input.systemsFlag.length > 0)
    return { reference: input.systemsFlag[0]!, from: 'systems' };
  const fromSheet = input.sheetOrder.find((system) => systems.includes(system));
  if (fromSheet !== undefined) return { reference: fromSheet, from: 'run_sheet' };
  return systems.length > 0 ? { reference: systems[0]!, from: 'sorted' } : { reference: null, from: null };
}

/** The words after a reference id that say how it was chosen. */
export function referenceReason(from: ReferenceFrom | null): string {
  switch (from) {
    case 'flag':
      return '--reference';
    case 'systems':
      return 'the first of --systems';
    case 'run_sheet':
      return "the run sheet's first system";
    case 'sorted':
      return 'the first system id in sorted order: no run sheet row names a compared system';
    default:
      return 'no system';
  }
}
