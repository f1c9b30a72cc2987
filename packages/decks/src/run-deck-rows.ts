import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import {
  describeError,
  executeWorkList,
  hashCanonicalJson,
  hashFile,
  isCaseInShard,
  isXsbError,
  type ProgressReporter,
  type RunLayout,
  readJson,
  type Shard,
  type StageEventListener,
  shardFileTag,
  shardLabel,
  silentProgress,
  type WorkDecision,
  type WorkUnit,
  withDirectoryLock,
  writeJson,
} from '@xsb/core';
import { outcomeCounts } from './merge-batch-summaries';
import type { RunSheet, RunSheetEntry } from './run-sheet';
import {
  type DeckBatchSummary,
  type DeckRowStatus,
  deckBatchSummarySchema,
  deckRowStatusSchema,
} from './schemas/deck-run-status';

export interface DeckRowFilters {
  conditions?: string[];
  audiences?: string[];
  caseLabels?: string[];
  shard?: Shard;
}

export interface DeckRowTask {
  entry: RunSheetEntry;
  deckDir: string;
  /** Where the deck must be written: the row's preferred path, else `<deckDir>/<deckFileName>`. */
  outputDeckPath: string;
}

export interface DeckRowWork<Input> {
  reads: string[];
  /** Hashed into the reuse key. */
  decidedBy: unknown;
  decision: Exclude<WorkDecision<unknown>, { kind: 'reuse' }>;
  input: Input;
}

export interface DeckRowUnitInput<Input> {
  task: DeckRowTask;
  reuseReason?: string;
  /** An input error met while describing the row: the row fails with it. */
  error?: unknown;
  input?: Input;
}

export type DeckRowUnit<Input, Request = unknown> = WorkUnit<Request, DeckRowUnitInput<Input>>;

export interface RunDeckRowsOptions<Input = undefined> {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  stage?: string;
  filters?: DeckRowFilters;
  force?: boolean;
  /** The file name used when a row names no output path, e.g. `deck.pptx`. */
  deckFileName: (entry: RunSheetEntry) => string;
  /** Why a row is not produced at all (e.g. its deck was imported), even with `force`. */
  skipReason?: (entry: RunSheetEntry) => string | undefined;
  /** What decides a row's deck (default: its run-sheet fields and the bytes of its source and prompt). */
  describe?: (task: DeckRowTask) => Promise<DeckRowWork<Input>>;
  /** Produces one deck; throws an XsbError (InputError …) to fail the row. */
  produce: (task: DeckRowTask, input: Input) => Promise<void>;
  progress?: ProgressReporter;
  onEvent?: StageEventListener;
}

const EXISTS_MESSAGE = 'output deck exists (forcing the row redoes it)';

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

/**
 * A deck is current when its `deck_status.json` records the same `input_hash`; one without a recorded
 * hash (placed by hand, or older) is reused: making it again could overwrite a deck someone put there.
 */
async function isCurrent(task: DeckRowTask, reuseKey: string): Promise<boolean> {
  if (!(await hasOutput(task.outputDeckPath))) return false;
  const statusFile = join(task.deckDir, 'deck_status.json');
  if (!existsSync(statusFile)) return true;
  try {
    const recorded = await readJson(statusFile, deckRowStatusSchema);
    return recorded.input_hash === undefined || recorded.input_hash === reuseKey;
  } catch {
    return true;
  }
}

/** The default `describe`: the row's fields, `settings` and the bytes of its source, prompt and `reads`. */
export async function describeByFiles(
  task: DeckRowTask,
  extra: { reads?: string[]; settings?: unknown } = {},
): Promise<DeckRowWork<undefined>> {
  const { entry } = task;
  const reads = [entry.sourceDocument, entry.promptPath, ...(extra.reads ?? [])].filter(
    (file) => file !== '',
  );
  const contents = await Promise.all(reads.map((file) => (existsSync(file) ? hashFile(file) : null)));
  return {
    reads,
    decidedBy: { row: entry.row, settings: extra.settings ?? null, contents },
    decision: { kind: 'rule', rule: entry.row.system },
    input: undefined,
  };
}

/** The row's normalized deck folder `decks/<system>/<condition>/<audience>/<case_label>/`. */
export function rowDeckDir(
  layout: RunLayout,
  run: string,
  row: { system: string; condition: string; audience: string; case_label: string },
): string {
  const { system, condition, audience } = row;
  return layout.deckDir({ run, system, condition, audience, caseLabel: row.case_label });
}

function taskOf<Input>(
  options: Omit<RunDeckRowsOptions<Input>, 'produce'>,
  entry: RunSheetEntry,
): DeckRowTask {
  const deckDir = rowDeckDir(options.layout, options.run, entry.row);
  return {
    entry,
    deckDir,
    outputDeckPath: entry.outputDeckPath || join(deckDir, options.deckFileName(entry)),
  };
}

async function unitOf<Input>(
  options: Omit<RunDeckRowsOptions<Input>, 'produce'>,
  entry: RunSheetEntry,
): Promise<DeckRowUnit<Input>> {
  const { row } = entry;
  const base = {
    stage: options.stage ?? 'decks',
    id: `${row.system}/${row.condition}/${row.audience}/${row.case_label}`,
  };
  const task = taskOf(options, entry);
  const skipReason = options.skipReason?.(entry);
  if (skipReason) {
    const artifact = task.outputDeckPath;
    return {
      ...base,
      reads: [artifact],
      reuseKey: '',
      decision: { kind: 'reuse', artifact },
      input: { task, reuseReason: skipReason },
    };
  }
  const describe =
    options.describe ?? (describeByFiles as unknown as (t: DeckRowTask) => Promise<DeckRowWork<Input>>);
  let work: DeckRowWork<Input>;
  try {
    work = await describe(task);
  } catch (error) {
    if (!isXsbError(error)) throw error;
    return {
      ...base,
      reads: [entry.sourceDocument],
      reuseKey: '',
      decision: { kind: 'rule', rule: 'input error' },
      input: { task, error },
    };
  }
  const reuseKey = hashCanonicalJson(work.decidedBy);
  const reused = !options.force && (await isCurrent(task, reuseKey));
  return {
    ...base,
    reads: work.reads,
    reuseKey,
    decision: reused ? { kind: 'reuse', artifact: task.outputDeckPath } : work.decision,
    input: { task, input: work.input, ...(reused ? { reuseReason: EXISTS_MESSAGE } : {}) },
  };
}

/** The selected rows' work list, in sheet order; reads the inputs and recorded keys, writes nothing. */
export async function deckRowWorkList<Input>(
  options: Omit<RunDeckRowsOptions<Input>, 'produce'>,
): Promise<Array<DeckRowUnit<Input>>> {
  const units: Array<DeckRowUnit<Input>> = [];
  for (const entry of options.sheet.entries) {
    if (rowMatchesFilters(entry, options.filters)) units.push(await unitOf(options, entry));
  }
  return units;
}

function statusBase(layout: RunLayout, task: DeckRowTask) {
  const { row } = task.entry;
  return {
    system: row.system,
    condition: row.condition,
    audience: row.audience,
    case_label: row.case_label,
    output_deck_path: relative(layout.dataDir, task.outputDeckPath),
    line: task.entry.line,
  };
}

function invalidRowStatuses(sheet: RunSheet): DeckRowStatus[] {
  return sheet.invalid.map((invalid) => ({
    system: invalid.raw.system || '?',
    condition: invalid.raw.condition || '?',
    audience: invalid.raw.audience || '?',
    case_label: invalid.raw.case_label || '?',
    status: 'failed',
    output_deck_path: '',
    message: invalid.error.message,
    line: invalid.line,
  }));
}

/**
 * Under the deck folder's lock (an overlapping shard or rerun fails fast instead of racing); a failure
 * is recorded in `deck_status.json` too, then thrown for the executor to count.
 */
async function produceRow<Input>(
  options: RunDeckRowsOptions<Input>,
  unit: DeckRowUnit<Input>,
): Promise<DeckRowStatus> {
  const { task } = unit.input;
  const base = statusBase(options.layout, task);
  if (unit.decision.kind === 'reuse')
    return { ...base, status: 'skipped', message: unit.input.reuseReason ?? EXISTS_MESSAGE };
  const statusFile = join(task.deckDir, 'deck_status.json');
  try {
    if (unit.input.error !== undefined) throw unit.input.error;
    const produced = await withDirectoryLock(
      task.deckDir,
      async () => {
        if (!options.force && (await isCurrent(task, unit.reuseKey))) return false;
        await options.produce(task, unit.input.input as Input);
        return true;
      },
      { timeoutMs: 2000, staleAfterMs: 24 * 3_600_000 },
    );
    if (!produced) return { ...base, status: 'skipped', message: EXISTS_MESSAGE };
    const status: DeckRowStatus = { ...base, status: 'done', message: '' };
    await writeJson(statusFile, deckRowStatusSchema, { ...status, input_hash: unit.reuseKey });
    return status;
  } catch (error) {
    if (!isXsbError(error)) throw error;
    await writeJson(statusFile, deckRowStatusSchema, {
      ...base,
      status: 'failed',
      message: describeError(error),
    });
    throw error;
  }
}

/** The batch summary's file: one per shard, so parallel shards never overwrite each other. */
function batchSummaryFile(layout: RunLayout, run: string, shard: Shard | undefined): string {
  const name = shard ? `batch_summary.${shardFileTag(shard)}.json` : 'batch_summary.json';
  return join(layout.decksRoot(run), name);
}

function batchSummary<Input>(
  options: RunDeckRowsOptions<Input>,
  selected: number,
  statuses: DeckRowStatus[],
): DeckBatchSummary {
  const { sheet } = options;
  return {
    // Data-relative when the sheet is inside the data folder (as `output_deck_path` is), so the summary
    // is the same wherever the folder lives: shards of a CI matrix merge into one (see `xsb merge`).
    run_sheet: dataRelative(options.layout.dataDir, sheet.file),
    rows_total: sheet.entries.length + sheet.invalid.length,
    // Invalid rows cannot be filtered (their fields are unknown): every one is reported as failed, so
    // it counts as selected and done + skipped + failed always equals rows_selected.
    rows_selected: selected + sheet.invalid.length,
    ...outcomeCounts(statuses),
    shard: options.filters?.shard ? shardLabel(options.filters.shard) : null,
    rows: statuses,
  };
}

/**
 * Runs the selected rows' work list one at a time and writes the batch summary. A failing row (an
 * XsbError) is recorded and the batch goes on; anything else is a bug and propagates.
 */
export async function runDeckRows<Input = undefined>(
  options: RunDeckRowsOptions<Input>,
): Promise<DeckBatchSummary> {
  const progress = options.progress ?? silentProgress;
  const units = await deckRowWorkList(options);
  const statuses = new Map<string, DeckRowStatus>();
  const failedStatus = (unit: DeckRowUnit<Input>, error: unknown): DeckRowStatus => ({
    ...statusBase(options.layout, unit.input.task),
    status: 'failed',
    message: describeError(error),
  });
  progress.start('decks', units.length);
  const outcomes = await executeWorkList(units, {
    stopsStage: (error) => !isXsbError(error),
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type !== 'unit-done' && event.type !== 'unit-failed') return;
      const unit = units.find((candidate) => candidate.id === event.id);
      const status = statuses.get(event.id)?.status ?? 'failed';
      progress.tick(1, `${unit?.input.task.entry.row.case_label}: ${status}`);
    },
    run: async (unit) => {
      const status = await produceRow(options, unit);
      statuses.set(unit.id, status);
      return status;
    },
  });
  const rows = [
    ...invalidRowStatuses(options.sheet),
    ...outcomes.map((outcome) => outcome.result ?? failedStatus(outcome.unit, outcome.error)),
  ];
  const summary = batchSummary(options, units.length, rows);
  progress.finish(`${summary.done} done, ${summary.skipped} skipped, ${summary.failed} failed`);
  await writeJson(
    batchSummaryFile(options.layout, options.run, options.filters?.shard),
    deckBatchSummarySchema,
    summary,
  );
  return summary;
}
