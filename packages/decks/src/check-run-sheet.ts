import { stat } from 'node:fs/promises';
import { didYouMean, type RunLayout, UsageError } from '@xsb/core';
import {
  type DataCase,
  importedDeckOf,
  readDataCases,
  readImportedSystems,
  sameDocument,
} from './data-cases';
import { BASELINE_SYSTEM } from './generate-baseline-deck';
import type { RunSheet, RunSheetEntry } from './run-sheet';
import type { DeckImportManifest } from './schemas/deck-import-manifest';

export interface RunSheetProblem {
  line: number;
  /** The column at fault, or `row` for the row as a whole. */
  field: string;
  message: string;
}

export interface CheckRunSheetOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  generators: readonly string[];
  audiences: readonly string[];
}

export interface CheckedRunSheet {
  problems: RunSheetProblem[];
  /** Systems imported into the run (`xsb decks import`): their rows are not generated. */
  imported: ReadonlyMap<string, DeckImportManifest>;
}

interface SheetContext {
  options: CheckRunSheetOptions;
  cases: Map<string, DataCase>;
  imported: Map<string, DeckImportManifest>;
  hashes: Map<string, string>;
  firstSource: Map<string, { path: string; line: number }>;
}

/** Checks every row of a run sheet before any deck is made, and returns all problems at once. */
export async function checkRunSheet(options: CheckRunSheetOptions): Promise<CheckedRunSheet> {
  const context: SheetContext = {
    options,
    cases: await readDataCases(options.layout),
    imported: await readImportedSystems(options.layout, options.run),
    hashes: new Map(),
    firstSource: new Map(),
  };
  const problems: RunSheetProblem[] = options.sheet.invalid.map((invalid) => ({
    line: invalid.line,
    field: invalid.field ?? 'row',
    message: invalid.reason,
  }));
  for (const entry of options.sheet.entries) problems.push(...(await checkRow(entry, context)));
  problems.sort((a, b) => a.line - b.line);
  return { problems, imported: context.imported };
}

async function checkRow(entry: RunSheetEntry, context: SheetContext): Promise<RunSheetProblem[]> {
  const problems: RunSheetProblem[] = [];
  const add = (field: string, message: string) => problems.push({ line: entry.line, field, message });
  const systemProblem = checkSystem(entry, context);
  if (systemProblem) add('system', systemProblem);
  const { row } = entry;
  const { audiences } = context.options;
  if (row.condition === 'audience_conditioned' && !audiences.includes(row.audience)) {
    add(
      'audience',
      `no audience profile "${row.audience}"${didYouMean(row.audience, audiences)} (known: ${audiences.join(', ')})`,
    );
  }
  const caseProblem = checkCase(row.case_label, context);
  if (caseProblem) add('case_label', caseProblem);
  const sourceProblem = await checkSource(entry, context);
  if (sourceProblem) add('source_document', sourceProblem);
  return problems;
}

function checkSystem(entry: RunSheetEntry, context: SheetContext): string | undefined {
  const { row } = entry;
  const { generators, run } = context.options;
  if (row.system === BASELINE_SYSTEM || generators.includes(row.system)) return undefined;
  const manifest = context.imported.get(row.system);
  if (manifest) {
    return importedDeckOf(manifest, row)
      ? undefined
      : `no deck of the imported system "${row.system}" for ${row.condition}/${row.audience}/${row.case_label} in run ${run} (import it first)`;
  }
  const known = [BASELINE_SYSTEM, ...generators, ...context.imported.keys()];
  return `unknown system "${row.system}"${didYouMean(row.system, known)}: not ${BASELINE_SYSTEM}, a generator of the config (${generators.length > 0 ? generators.join(', ') : 'none under "generators"'}) or a system imported into run ${run} (${context.imported.size > 0 ? [...context.imported.keys()].join(', ') : 'none'})`;
}

function checkCase(caseLabel: string, context: SheetContext): string | undefined {
  const { cases, options } = context;
  if (cases.size === 0) return undefined;
  const known = cases.get(caseLabel);
  if (!known) {
    return `case "${caseLabel}" has no sources: no ${options.layout.sourcesDir()}/${caseLabel}/${didYouMean(caseLabel, cases.keys())} (cases: ${[...cases.keys()].sort().join(', ')})`;
  }
  return known.problem ? `case "${caseLabel}" has no usable source: ${known.problem}` : undefined;
}

async function checkSource(entry: RunSheetEntry, context: SheetContext): Promise<string | undefined> {
  const { row, sourceDocument } = entry;
  if (!(await isFile(sourceDocument))) {
    return `${row.source_document} does not exist (${sourceDocument})`;
  }
  const own = context.cases.get(row.case_label)?.sourceFile;
  if (own && !(await sameDocument(sourceDocument, own, context.hashes))) {
    for (const other of context.cases.values()) {
      if (other.sourceFile && (await sameDocument(sourceDocument, other.sourceFile, context.hashes)))
        return `${row.source_document} is the source of case "${other.caseId}", not of case "${row.case_label}" (${own})`;
    }
    return `${row.source_document} is not the source of case "${row.case_label}" (${own})`;
  }
  const first = context.firstSource.get(row.case_label);
  if (!first) context.firstSource.set(row.case_label, { path: sourceDocument, line: entry.line });
  else if (!(await sameDocument(sourceDocument, first.path, context.hashes))) {
    return `${row.source_document} differs from the source document of case "${row.case_label}" on line ${first.line} (${first.path})`;
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export function runSheetProblemsError(file: string, problems: readonly RunSheetProblem[]): UsageError {
  const lines = problems.map((problem) => `  line ${problem.line}, ${problem.field}: ${problem.message}`);
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new UsageError(`${file}: ${count}; no deck was made:\n${lines.join('\n')}`, {
    code: 'invalid_run_sheet',
    details: { problems },
  });
}
