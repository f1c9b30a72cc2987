import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertSafePathPart,
  describeError,
  hashBytes,
  InputError,
  isXsbError,
  type RunLayout,
  writeJson,
} from '@xsb/core';
import { checkRunSheet, runSheetProblemsError } from './check-run-sheet';
import type { AudienceDescription } from './generate-decks-from-run-sheet';
import { readFileHead } from './read-deck';
import { type DeckRowFilters, rowDeckDir, rowMatchesFilters } from './run-deck-rows';
import { RUN_SHEET_COLUMNS, type RunSheet, type RunSheetEntry, writeCsvAtomic } from './run-sheet';
import {
  SLIDETAILOR_TEMPLATE_MODE,
  slidetailorConfigSchema,
  slidetailorPreferenceSchema,
} from './schemas/slidetailor-job';

const SLIDETAILOR_SYSTEM = 'slidetailor';

const SLIDETAILOR_RUN_SHEET_COLUMNS = [...RUN_SHEET_COLUMNS, 'config_path', 'template_mode'] as const;

const RUN_SHEET_NAME = 'slidetailor_run_sheet.csv';

function defaultOutDir(layout: RunLayout, run: string): string {
  return join(layout.runDir(run), 'slidetailor');
}

/** The run sheet prepareSlideTailor writes without `outDir`: what `runSlideTailor` reads by default. */
export function defaultSlideTailorRunSheet(layout: RunLayout, run: string): string {
  return join(defaultOutDir(layout, run), RUN_SHEET_NAME);
}

export interface PrepareSlideTailorOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  /** Where the dataset, configs, preferences and run sheet go (default `<run>/slidetailor`). */
  outDir?: string;
  /** The reference template deck SlideTailor imitates ('' lets SlideTailor use its default). */
  templatePath?: string;
  audienceProfiles: ReadonlyArray<AudienceDescription>;
  filters?: DeckRowFilters;
}

export interface PrepareSlideTailorResult {
  outDir: string;
  runSheetFile: string;
  prepared: number;
  skipped: Array<{ case_label: string; line: number; reason: string }>;
}

const AGNOSTIC_GUIDELINES =
  'No audience is specified. Produce a general-purpose deck that covers the paper’s most important content for a broad audience.';

/** The SlideTailor rows (only) are checked as `xsb decks generate` checks its rows, before any write. */
async function refuseBadSlideTailorRows(options: PrepareSlideTailorOptions): Promise<void> {
  const sheet: RunSheet = {
    ...options.sheet,
    entries: options.sheet.entries.filter((entry) => entry.row.system === SLIDETAILOR_SYSTEM),
  };
  const { problems } = await checkRunSheet({
    sheet,
    layout: options.layout,
    run: options.run,
    generators: [SLIDETAILOR_SYSTEM],
    audiences: options.audienceProfiles.map((profile) => profile.id),
  });
  if (problems.length > 0) throw runSheetProblemsError(sheet.file, problems);
}

/** The row's PDF source as `dataset/<case>/paper.pdf`, copied unless the same bytes are there. */
async function copyPaper(entry: RunSheetEntry, outDir: string): Promise<string> {
  if (!existsSync(entry.sourceDocument)) {
    throw new InputError('the source document does not exist', {
      file: entry.sourceDocument,
      code: 'missing_file',
    });
  }
  if (!(await readFileHead(entry.sourceDocument, 1024)).includes('%PDF-')) {
    throw new InputError('SlideTailor prepares PDF sources only; this source is not a PDF', {
      file: entry.sourceDocument,
      code: 'not_pdf',
    });
  }
  const caseDir = join(outDir, 'dataset', entry.row.case_label);
  const paperPath = join(caseDir, 'paper.pdf');
  const sourceBytes = await readFile(entry.sourceDocument);
  if (!existsSync(paperPath) || hashBytes(await readFile(paperPath)) !== hashBytes(sourceBytes)) {
    await mkdir(caseDir, { recursive: true });
    await copyFile(entry.sourceDocument, paperPath);
  }
  return paperPath;
}

async function preferenceGuidelines(
  entry: RunSheetEntry,
  profiles: ReadonlyArray<{ id: string; description: string }>,
): Promise<string> {
  const { row } = entry;
  let guidelines = AGNOSTIC_GUIDELINES;
  if (row.condition === 'audience_conditioned') {
    const profile = profiles.findLast((candidate) => candidate.id === row.audience)?.description;
    if (!profile)
      throw new InputError(`no audience profile for "${row.audience}"`, { code: 'missing_profile' });
    guidelines = `The deck is for ${row.audience.replace(/[_-]+/g, ' ')}: ${profile}`;
  }
  if (entry.promptPath) guidelines += `\n\n${(await readFile(entry.promptPath, 'utf8')).trim()}`;
  return guidelines;
}

async function prepareRow(
  options: PrepareSlideTailorOptions,
  outDir: string,
  entry: RunSheetEntry,
): Promise<Record<string, string>> {
  const { row } = entry;
  const jobId = [row.condition, row.audience, row.case_label]
    .map((part) => assertSafePathPart(part, 'name'))
    .join('__');
  const paperPath = await copyPaper(entry, outDir);
  const preferencePath = join(outDir, 'preferences', `${jobId}.json`);
  await writeJson(preferencePath, slidetailorPreferenceSchema, {
    case_label: row.case_label,
    condition: row.condition,
    audience: row.audience,
    template_mode: SLIDETAILOR_TEMPLATE_MODE,
    preference_guidelines: await preferenceGuidelines(entry, options.audienceProfiles),
  });
  const deckDir = rowDeckDir(options.layout, options.run, row);
  const outputDeckPath = entry.outputDeckPath || join(deckDir, `${row.case_label}.pptx`);
  const configPath = join(outDir, 'configs', `${jobId}.json`);
  await writeJson(configPath, slidetailorConfigSchema, {
    job_id: jobId,
    paper_path: paperPath,
    preference_path: preferencePath,
    template_mode: SLIDETAILOR_TEMPLATE_MODE,
    template_path: options.templatePath ?? '',
    output_dir: join(outDir, 'work', jobId),
    output_deck_path: outputDeckPath,
  });
  return {
    system: row.system,
    condition: row.condition,
    audience: row.audience,
    case_label: row.case_label,
    source_document: paperPath,
    prompt_path: preferencePath,
    output_deck_path: outputDeckPath,
    config_path: configPath,
    template_mode: SLIDETAILOR_TEMPLATE_MODE,
  };
}

/**
 * Builds what the external SlideTailor program needs for a sheet's `slidetailor` rows: papers,
 * preferences, configs and `slidetailor_run_sheet.csv`; a row that cannot be prepared is skipped.
 */
export async function prepareSlideTailor(
  options: PrepareSlideTailorOptions,
): Promise<PrepareSlideTailorResult> {
  const outDir = options.outDir ?? defaultOutDir(options.layout, options.run);
  await refuseBadSlideTailorRows(options);
  const skipped: PrepareSlideTailorResult['skipped'] = [];
  const rows: Array<Record<string, string>> = [];
  for (const entry of options.sheet.entries) {
    const { row } = entry;
    if (row.system !== SLIDETAILOR_SYSTEM || !rowMatchesFilters(entry, options.filters)) continue;
    try {
      rows.push(await prepareRow(options, outDir, entry));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      skipped.push({ case_label: row.case_label, line: entry.line, reason: describeError(error) });
    }
  }
  const runSheetFile = join(outDir, RUN_SHEET_NAME);
  await writeCsvAtomic(runSheetFile, SLIDETAILOR_RUN_SHEET_COLUMNS, rows);
  return { outDir, runSheetFile, prepared: rows.length, skipped };
}
