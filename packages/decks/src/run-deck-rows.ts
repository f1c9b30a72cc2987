import { stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import {
  type DeckBatchSummary,
  type DeckRowStatus,
  deckBatchSummarySchema,
  deckRowStatusSchema,
  describeError,
  isCaseInShard,
  isXsbError,
  type ProgressReporter,
  type RunLayout,
  type Shard,
  shardFileTag,
  shardLabel,
  silentProgress,
  withDirectoryLock,
  writeJson,
} from '@xsb/core';
import type { RunSheet, RunSheetEntry } from './run-sheet';

export interface DeckRowFilters {
  conditions?: string[];
  audiences?: string[];
  caseLabels?: string[];
  shard?: Shard;
}

export interface DeckRowTask {
  entry: RunSheetEntry;
  /** The normalized deck folder `decks/<system>/<condition>/<audience>/<case_label>/`. */
  deckDir: string;
  /** Where the deck must be written: the row's preferred path, else `<deckDir>/<deckFileName>`. */
  outputDeckPath: string;
}

export interface RunDeckRowsOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  filters?: DeckRowFilters;
  force?: boolean;
  /** The file name used when a row names no output path, e.g. `deck.pptx`. */
  deckFileName: (entry: RunSheetEntry) => string;
  /** Why a row is not produced at all (e.g. its deck was imported), even with `force`. */
  skipReason?: (entry: RunSheetEntry) => string | undefined;
  /** Produces one deck; throws an XsbError (InputError …) to fail the row. */
  produce: (task: DeckRowTask) => Promise<void>;
  progress?: ProgressReporter;
}

/** Whether a row passes the `--condition/--audience/--case/--shard` filters. */
export function rowMatchesFilters(entry: Pick<RunSheetEntry, 'row'>, filters: DeckRowFilters = {}): boolean {
  const { row } = entry;
  if (filters.conditions?.length && !filters.conditions.includes(row.condition)) return false;
  if (filters.audiences?.length && !filters.audiences.includes(row.audience)) return false;
  if (filters.caseLabels?.length && !filters.caseLabels.includes(row.case_label)) return false;
  return isCaseInShard(row.case_label, filters.shard);
}

function dataRelative(dataDir: string, file: string): string {
  const inside = relative(dataDir, file);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)
    ? inside.split(sep).join('/')
    : file;
}

async function hasOutput(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.isFile() && info.size > 0;
  } catch {
    return false;
  }
}

/** The batch summary's file: one per shard, so parallel shards never overwrite each other. */
function batchSummaryFile(layout: RunLayout, run: string, shard: Shard | undefined): string {
  const name = shard ? `batch_summary.${shardFileTag(shard)}.json` : 'batch_summary.json';
  return join(layout.decksRoot(run), name);
}

/**
 * Runs the selected rows of a run sheet one by one: skips rows whose output deck exists (unless
 * `force`), records `deck_status.json` per produced or failed row, and writes a batch summary. A
 * failing row (an XsbError) is recorded and the batch goes on; anything else is a bug and propagates.
 */
export async function runDeckRows(options: RunDeckRowsOptions): Promise<DeckBatchSummary> {
  const { sheet, layout, run } = options;
  const progress = options.progress ?? silentProgress;
  const selected = options.sheet.entries.filter((entry) => rowMatchesFilters(entry, options.filters));
  const statuses: DeckRowStatus[] = [];
  for (const invalid of sheet.invalid) {
    statuses.push({
      system: invalid.raw.system || '?',
      condition: invalid.raw.condition || '?',
      audience: invalid.raw.audience || '?',
      case_label: invalid.raw.case_label || '?',
      status: 'failed',
      output_deck_path: '',
      message: invalid.error.message,
      line: invalid.line,
    });
  }
  progress.start('decks', selected.length);
  for (const entry of selected) {
    const { row } = entry;
    const deckDir = layout.deckDir({
      run,
      system: row.system,
      condition: row.condition,
      audience: row.audience,
      caseLabel: row.case_label,
    });
    const outputDeckPath = entry.outputDeckPath || join(deckDir, options.deckFileName(entry));
    const base = {
      system: row.system,
      condition: row.condition,
      audience: row.audience,
      case_label: row.case_label,
      output_deck_path: relative(layout.dataDir, outputDeckPath),
      line: entry.line,
    };
    const skipReason = options.skipReason?.(entry);
    if (skipReason) {
      statuses.push({ ...base, status: 'skipped', message: skipReason });
      progress.tick(1, `${row.case_label}: skipped`);
      continue;
    }
    if (!options.force && (await hasOutput(outputDeckPath))) {
      statuses.push({ ...base, status: 'skipped', message: 'output deck exists (use --force to redo it)' });
      progress.tick(1, `${row.case_label}: skipped`);
      continue;
    }
    let status: DeckRowStatus;
    try {
      // A second process on the same deck (an overlapping shard, a rerun) fails fast instead of racing.
      const produced = await withDirectoryLock(
        deckDir,
        async () => {
          if (!options.force && (await hasOutput(outputDeckPath))) return false;
          await options.produce({ entry, deckDir, outputDeckPath });
          return true;
        },
        { timeoutMs: 2000, staleAfterMs: 24 * 3_600_000 },
      );
      if (!produced) {
        statuses.push({ ...base, status: 'skipped', message: 'output deck exists (use --force to redo it)' });
        progress.tick(1, `${row.case_label}: skipped`);
        continue;
      }
      status = { ...base, status: 'done', message: '' };
    } catch (error) {
      if (!isXsbError(error)) throw error;
      status = { ...base, status: 'failed', message: describeError(error) };
    }
    await writeJson(join(deckDir, 'deck_status.json'), deckRowStatusSchema, status);
    statuses.push(status);
    progress.tick(1, `${row.case_label}: ${status.status}`);
  }
  const count = (outcome: DeckRowStatus['status']) =>
    statuses.filter((item) => item.status === outcome).length;
  const summary: DeckBatchSummary = {
    // Data-relative when the sheet is inside the data folder (as `output_deck_path` is), so the summary
    // is the same wherever the folder lives: shards of a CI matrix merge into one (see `xsb merge`).
    run_sheet: dataRelative(layout.dataDir, sheet.file),
    rows_total: sheet.entries.length + sheet.invalid.length,
    // Invalid rows cannot be filtered (their fields are unknown): every one is reported as failed, so
    // it counts as selected and done + skipped + failed always equals rows_selected.
    rows_selected: selected.length + sheet.invalid.length,
    done: count('done'),
    skipped: count('skipped'),
    failed: count('failed'),
    shard: options.filters?.shard ? shardLabel(options.filters.shard) : null,
    rows: statuses,
  };
  progress.finish(`${summary.done} done, ${summary.skipped} skipped, ${summary.failed} failed`);
  await writeJson(batchSummaryFile(layout, run, options.filters?.shard), deckBatchSummarySchema, summary);
  return summary;
}
