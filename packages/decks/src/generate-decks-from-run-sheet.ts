import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  type GeneratorConfig,
  hashBytes,
  InputError,
  type ProgressReporter,
  type RunLayout,
  readUtf8Text,
  type StageEventListener,
} from '@xsb/core';
import type { CompletionRequest, Judge, JudgeDescription } from '@xsb/llm';
import { detectSourceLanguage, stopLanguageDetector } from '@xsb/sources';
import type { LexicalPreferences } from '@xsb/weights';
import { checkRunSheet, runSheetProblemsError } from './check-run-sheet';
import { importedDeckOf } from './data-cases';
import {
  BASELINE_SYSTEM,
  type BaselineDeckRequest,
  type BaselineDeckResult,
  DEFAULT_MAX_SLIDES,
  generateBaselineDeck,
  llmOutlineInputOf,
  type PlannedRequest,
  requireAudienceProfile,
} from './generate-baseline-deck';
import { loadSourceText } from './load-source-text';
import { buildOutlineRequest } from './plan-llm-outline';
import { readCaseMetadata } from './read-case-metadata';
import { resolveGeneratorEnv, runCommandGenerator } from './run-command-generator';
import {
  type DeckRowFilters,
  type DeckRowTask,
  type DeckRowUnit,
  type DeckRowWork,
  deckRowWorkList,
  describeByFiles,
  type RunDeckRowsOptions,
  runDeckRows,
} from './run-deck-rows';
import type { RunSheet, RunSheetEntry } from './run-sheet';
import type { DeckBatchSummary } from './schemas/deck-run-status';

export const OUTLINE_STAGE = 'decks.outline';

/** The estimated answer of one outline request: ~7 slides of 2–6 bullets. */
const OUTLINE_OUTPUT_TOKENS = 1500;

export interface AudienceDescription {
  id: string;
  description: string;
  /** Offline planner preferences (`lexical` of a user profile file); built-in audiences need none. */
  lexical?: LexicalPreferences;
}

export interface DeckWorkListOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  judge: JudgeDescription;
  audienceProfiles: ReadonlyArray<AudienceDescription>;
  /** Command generators by system name (`generators` of the config): rows of these systems run them. */
  generators?: Readonly<Record<string, GeneratorConfig>>;
  filters?: DeckRowFilters;
  force?: boolean;
  maxSlides?: number;
}

export interface GenerateDecksOptions extends DeckWorkListOptions {
  judge: Judge;
  /** The environment command generators inherit and their `${VAR}` references read (default: this process's). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The folder a generator's relative `cwd` is resolved against (default: this process's working folder). */
  baseDir?: string;
  progress?: ProgressReporter;
  onEvent?: StageEventListener;
}

interface BaselineSource
  extends Pick<BaselineDeckRequest, 'caseLabel' | 'condition' | 'audience' | 'maxSlides'> {
  sourceDocument: string;
  /** The case's `source_context.txt` (stage 2), preferred to the source document when it exists. */
  sourceContextFile?: string;
  /** The data tree's `source_metadata.json` of the case, when none is beside the source document. */
  caseMetadataFile?: string;
  promptPath?: string;
  audienceProfiles: ReadonlyArray<AudienceDescription>;
}

/** One baseline deck from a source document, as a run-sheet row or `xsb decks generate --out` asks for it. */
export interface BaselineDeckFromSource extends BaselineSource {
  outputDeckPath: string;
  /** Where `deck_outline.json` goes; without it no outline file is written. */
  deckDir?: string;
  judge: Judge;
}

/** An InputError of one deck names the source it came from when it names no file of its own. */
async function naming<T>(sourceDocument: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof InputError && !error.file) {
      throw new InputError(error.message, { file: sourceDocument, code: error.code, cause: error });
    }
    throw error;
  }
}

/** Everything that decides one baseline deck but its language, which follows from the (hashed) text. */
async function readBaselineRequest(
  source: BaselineSource,
): Promise<{ request: PlannedRequest; reads: string[] }> {
  return naming(source.sourceDocument, async () => {
    const sourceText = await loadSourceText(source.sourceDocument, {
      ...(source.sourceContextFile ? { sourceContextFile: source.sourceContextFile } : {}),
    });
    const metadata = await readCaseMetadata(source.sourceDocument, source.caseMetadataFile);
    const extraInstructions = source.promptPath ? await readUtf8Text(source.promptPath) : undefined;
    const profile = source.audienceProfiles.find((candidate) => candidate.id === source.audience);
    const title = metadata?.metadata.title?.trim() ? metadata.metadata.title : undefined;
    const scene = metadata?.metadata.scene?.trim() ? metadata.metadata.scene : undefined;
    const request: PlannedRequest = {
      caseLabel: source.caseLabel,
      condition: source.condition,
      audience: source.audience,
      sourceText,
      ...(title ? { title } : {}),
      ...(scene ? { scene } : {}),
      ...(profile ? { audienceProfile: profile.description } : {}),
      ...(profile?.lexical ? { audiencePreferences: profile.lexical } : {}),
      ...(source.maxSlides ? { maxSlides: source.maxSlides } : {}),
      ...(extraInstructions ? { extraInstructions } : {}),
    };
    requireAudienceProfile(request);
    const reads = [
      source.sourceContextFile && existsSync(source.sourceContextFile)
        ? source.sourceContextFile
        : source.sourceDocument,
      metadata?.file ?? '',
      source.promptPath ?? '',
    ].filter((file) => file !== '');
    return { request, reads };
  });
}

/** The `xsb-baseline` deck of one source; its InputErrors name the source. */
export async function generateBaselineDeckFromSource(
  options: BaselineDeckFromSource,
): Promise<BaselineDeckResult> {
  const { request } = await readBaselineRequest(options);
  return naming(options.sourceDocument, () =>
    generateBaselineDeck(
      {
        ...request,
        outputDeckPath: options.outputDeckPath,
        ...(options.deckDir ? { deckDir: options.deckDir } : {}),
      },
      options.judge,
    ),
  );
}

function baselineDecision(
  request: PlannedRequest,
  judge: JudgeDescription,
): DeckRowWork<unknown>['decision'] {
  if (judge.kind === 'offline') return { kind: 'rule', rule: 'lexical outline' };
  const call = buildOutlineRequest(llmOutlineInputOf(request, request.language));
  return {
    kind: 'call',
    requests: [call],
    outputTokens: Math.min(OUTLINE_OUTPUT_TOKENS, call.maxTokens ?? OUTLINE_OUTPUT_TOKENS),
  };
}

type DeckRowInput =
  | { kind: 'baseline'; request: PlannedRequest }
  | { kind: 'generator'; config: GeneratorConfig };

type SheetRows = Awaited<ReturnType<typeof checkedSheetRows>>;

async function checkedSheetRows(options: DeckWorkListOptions) {
  const generators = options.generators ?? {};
  const generatorOf = (system: string): GeneratorConfig | undefined =>
    Object.hasOwn(generators, system) ? generators[system] : undefined;
  const { problems, imported } = await checkRunSheet({
    sheet: options.sheet,
    layout: options.layout,
    run: options.run,
    generators: Object.keys(generators),
    audiences: options.audienceProfiles.map((profile) => profile.id),
  });
  if (problems.length > 0) throw runSheetProblemsError(options.sheet.file, problems);
  const importedDeck = (entry: RunSheetEntry) => {
    const { row } = entry;
    if (row.system === BASELINE_SYSTEM || generatorOf(row.system)) return undefined;
    return importedDeckOf(imported.get(row.system), row);
  };
  return { generatorOf, importedDeck };
}

async function describeRow(
  options: DeckWorkListOptions,
  rows: SheetRows,
  task: DeckRowTask,
): Promise<DeckRowWork<DeckRowInput>> {
  const { entry } = task;
  const config = rows.generatorOf(entry.row.system);
  if (config) {
    // The generator's env values may be secrets: its variable names decide, not their values.
    const settings = { ...config, env: Object.keys(config.env ?? {}).sort() };
    const work = await describeByFiles(task, { settings });
    return {
      ...work,
      decision: { kind: 'rule', rule: `generator ${entry.row.system}` },
      input: { kind: 'generator', config },
    };
  }
  // checkRunSheet refused every other system before the list was made.
  if (entry.row.system !== BASELINE_SYSTEM) throw new Error(`unchecked system "${entry.row.system}"`);
  const { request, reads } = await readBaselineRequest({
    sourceDocument: entry.sourceDocument,
    caseLabel: entry.row.case_label,
    condition: entry.row.condition,
    audience: entry.row.audience,
    sourceContextFile: options.layout.sourceContextFile(entry.row.case_label),
    caseMetadataFile: options.layout.sourceMetadataFile(entry.row.case_label),
    ...(entry.promptPath ? { promptPath: entry.promptPath } : {}),
    audienceProfiles: options.audienceProfiles,
    // The default is applied before hashing, so a library call without a limit and the CLI's `--max-slides 8` share decks.
    maxSlides: options.maxSlides || DEFAULT_MAX_SLIDES,
  });
  const { sourceText, ...settings } = request;
  // A model's request names the language; the offline rule detects it only when it makes the deck.
  const language = options.judge.kind === 'offline' ? undefined : await detectSourceLanguage(sourceText);
  const planned = language ? { ...request, language } : request;
  return {
    reads,
    decidedBy: {
      generator: BASELINE_SYSTEM,
      judge: options.judge.id,
      ...settings,
      source_sha256: hashBytes(sourceText),
    },
    decision: baselineDecision(planned, options.judge),
    input: { kind: 'baseline', request: planned },
  };
}

function rowsOptions(
  options: DeckWorkListOptions,
  rows: SheetRows,
): Omit<RunDeckRowsOptions<DeckRowInput>, 'produce'> {
  // A run's `progress` and `onEvent` pass through with the options.
  return {
    ...options,
    stage: OUTLINE_STAGE,
    deckFileName: (entry) => {
      const deck = rows.importedDeck(entry);
      if (deck) return basename(deck.deck_path);
      return `${entry.row.case_label}.${rows.generatorOf(entry.row.system)?.format ?? 'pptx'}`;
    },
    skipReason: (entry) => (rows.importedDeck(entry) ? 'imported into the run from another tool' : undefined),
    describe: (task) => describeRow(options, rows, task),
  };
}

/** The work list the run walks and `xsb plan` prices (see deckRowWorkList). Reads, never writes. */
export async function deckGenerationWorkList(
  options: DeckWorkListOptions,
): Promise<Array<DeckRowUnit<DeckRowInput, CompletionRequest>>> {
  try {
    return (await deckRowWorkList(rowsOptions(options, await checkedSheetRows(options)))) as Array<
      DeckRowUnit<DeckRowInput, CompletionRequest>
    >;
  } finally {
    await stopLanguageDetector();
  }
}

/**
 * Generates a run sheet's rows into the deck tree: `xsb-baseline` rows with the built-in generator,
 * others with their command generator; imported and current decks are reused. The whole sheet is
 * checked first (nothing is written on a problem). The language detector's thread ends with the batch,
 * so a later stage in the same process does not carry eld's database.
 */
export async function generateDecksFromRunSheet(options: GenerateDecksOptions): Promise<DeckBatchSummary> {
  try {
    const environment = options.environment ?? process.env;
    const used = new Set(options.sheet.entries.map((entry) => entry.row.system));
    for (const [name, config] of Object.entries(options.generators ?? {})) {
      if (used.has(name)) resolveGeneratorEnv(name, config.env, environment);
    }
    const rows = await checkedSheetRows(options);
    return await runDeckRows({
      ...rowsOptions(options, rows),
      produce: async ({ entry, deckDir, outputDeckPath }, input) => {
        if (input.kind === 'baseline') {
          await naming(entry.sourceDocument, () =>
            generateBaselineDeck({ ...input.request, outputDeckPath, deckDir }, options.judge),
          );
          return;
        }
        await runCommandGenerator({
          name: entry.row.system,
          config: input.config,
          values: {
            source: entry.sourceDocument,
            source_dir: dirname(entry.sourceDocument),
            audience: entry.row.audience,
            condition: entry.row.condition,
            prompt: entry.promptPath,
            case: entry.row.case_label,
          },
          outputDeckPath,
          deckDir,
          environment,
          baseDir: resolve(options.baseDir ?? process.cwd()),
          where: `${options.sheet.file}:${entry.line}`,
        });
      },
    });
  } finally {
    await stopLanguageDetector();
  }
}
