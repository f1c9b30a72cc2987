import { basename, dirname, resolve } from 'node:path';
import {
  type Condition,
  type DeckBatchSummary,
  type GeneratorConfig,
  InputError,
  type LexicalPreferences,
  type ProgressReporter,
  type RunLayout,
  readUtf8Text,
} from '@xsb/core';
import type { LlmClient } from '@xsb/llm';
import { checkRunSheet, runSheetProblemsError } from './check-run-sheet';
import { stopLanguageDetector } from './detect-source-language';
import { BASELINE_SYSTEM, type BaselineDeckResult, generateBaselineDeck } from './generate-baseline-deck';
import { loadSourceText } from './load-source-text';
import { readCaseMetadata } from './read-case-metadata';
import { resolveGeneratorEnv, runCommandGenerator } from './run-command-generator';
import { type DeckRowFilters, runDeckRows } from './run-deck-rows';
import type { RunSheet, RunSheetEntry } from './run-sheet';

export interface AudienceDescription {
  id: string;
  description: string;
  /** Offline planner preferences (`lexical` of a user profile file); built-in audiences need none. */
  lexical?: LexicalPreferences;
}

export interface GenerateDecksOptions {
  sheet: RunSheet;
  layout: RunLayout;
  run: string;
  planner: LlmClient | 'lexical';
  /** Audience profiles by id (e.g. `@xsb/weights`' built-ins plus the user's file). */
  audienceProfiles: ReadonlyArray<AudienceDescription>;
  /** Command generators by system name (`generators` of the config): rows of these systems run them. */
  generators?: Readonly<Record<string, GeneratorConfig>>;
  /** The environment command generators inherit and their `${VAR}` references read (default: this process's). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The folder a generator's relative `cwd` is resolved against (default: this process's working folder). */
  baseDir?: string;
  filters?: DeckRowFilters;
  force?: boolean;
  maxSlides?: number;
  progress?: ProgressReporter;
}

/** One baseline deck from a source document, as a run-sheet row or `xsb decks generate --out` asks for it. */
export interface BaselineDeckFromSource {
  sourceDocument: string;
  caseLabel: string;
  condition: Condition;
  audience: string;
  outputDeckPath: string;
  /** The case's `source_context.txt` (stage 2), preferred to the source document when it exists. */
  sourceContextFile?: string;
  /** The data tree's `source_metadata.json` of the case, when none is beside the source document. */
  caseMetadataFile?: string;
  /** The row's prompt file (extra model instructions). */
  promptPath?: string;
  /** Where `deck_outline.json` goes; without it no outline file is written. */
  deckDir?: string;
  planner: LlmClient | 'lexical';
  audienceProfiles: ReadonlyArray<AudienceDescription>;
  maxSlides?: number;
}

/**
 * The `xsb-baseline` deck of one source: its text (the case's source context when stage 2 made one),
 * the title and scene of its `source_metadata.json`, the row's prompt file and audience profile.
 * A source without usable sentences fails with an InputError naming the source.
 */
export async function generateBaselineDeckFromSource(
  options: BaselineDeckFromSource,
): Promise<BaselineDeckResult> {
  const sourceText = await loadSourceText(options.sourceDocument, {
    ...(options.sourceContextFile ? { sourceContextFile: options.sourceContextFile } : {}),
  });
  const metadata = (await readCaseMetadata(options.sourceDocument, options.caseMetadataFile))?.metadata;
  const extraInstructions = options.promptPath ? await readUtf8Text(options.promptPath) : undefined;
  const profile = options.audienceProfiles.find((candidate) => candidate.id === options.audience);
  try {
    return await generateBaselineDeck(
      {
        caseLabel: options.caseLabel,
        condition: options.condition,
        audience: options.audience,
        sourceText,
        ...(metadata?.title?.trim() ? { title: metadata.title } : {}),
        ...(metadata?.scene?.trim() ? { scene: metadata.scene } : {}),
        outputDeckPath: options.outputDeckPath,
        ...(options.deckDir ? { deckDir: options.deckDir } : {}),
        ...(profile ? { audienceProfile: profile.description } : {}),
        ...(profile?.lexical ? { audiencePreferences: profile.lexical } : {}),
        ...(options.maxSlides ? { maxSlides: options.maxSlides } : {}),
        ...(extraInstructions ? { extraInstructions } : {}),
      },
      options.planner,
    );
  } catch (error) {
    if (error instanceof InputError && !error.file) {
      throw new InputError(error.message, { file: options.sourceDocument, code: error.code, cause: error });
    }
    throw error;
  }
}

/**
 * Generates the rows of a run sheet into the normalized deck tree (`<case_label>.pptx`, or `.pdf` for
 * a PDF command generator, unless the row names an output path): `xsb-baseline` rows with the
 * built-in generator, rows whose system is a configured command generator by running it (see
 * runCommandGenerator); rows of a system imported into the run (`xsb decks import`) are skipped.
 * Every row of the sheet (not only the selected ones) is checked first (see checkRunSheet): any
 * problem is a UsageError listing them all by line and column, and nothing is written. A row that
 * fails while its deck is made is recorded and the batch goes on. A generator's `${VAR}` that is not
 * set is a ConfigError before any row runs. The language detector's thread (see detectSourceLanguage) ends with the batch, so a
 * stage after it in the same process does not carry eld's database.
 */
export async function generateDecksFromRunSheet(options: GenerateDecksOptions): Promise<DeckBatchSummary> {
  try {
    return await generateSheetRows(options);
  } finally {
    await stopLanguageDetector();
  }
}

async function generateSheetRows(options: GenerateDecksOptions): Promise<DeckBatchSummary> {
  const generators = options.generators ?? {};
  const environment = options.environment ?? process.env;
  const used = new Set(options.sheet.entries.map((entry) => entry.row.system));
  for (const [name, config] of Object.entries(generators)) {
    if (used.has(name)) resolveGeneratorEnv(name, config.env, environment);
  }
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
    if (entry.row.system === BASELINE_SYSTEM || generatorOf(entry.row.system)) return undefined;
    const { row } = entry;
    return imported
      .get(row.system)
      ?.decks.find(
        (deck) =>
          deck.case_label === row.case_label &&
          deck.condition === row.condition &&
          deck.audience === row.audience,
      );
  };
  return runDeckRows({
    sheet: options.sheet,
    layout: options.layout,
    run: options.run,
    ...(options.filters ? { filters: options.filters } : {}),
    ...(options.force ? { force: true } : {}),
    ...(options.progress ? { progress: options.progress } : {}),
    deckFileName: (entry) => {
      const deck = importedDeck(entry);
      if (deck) return basename(deck.deck_path);
      return `${entry.row.case_label}.${generatorOf(entry.row.system)?.format ?? 'pptx'}`;
    },
    skipReason: (entry) => (importedDeck(entry) ? 'imported with `xsb decks import`' : undefined),
    produce: async ({ entry, deckDir, outputDeckPath }) => {
      const { row } = entry;
      const where = `${options.sheet.file}:${entry.line}`;
      const generator = generatorOf(row.system);
      if (generator) {
        await runCommandGenerator({
          name: row.system,
          config: generator,
          values: {
            source: entry.sourceDocument,
            source_dir: dirname(entry.sourceDocument),
            audience: row.audience,
            condition: row.condition,
            prompt: entry.promptPath,
            case: row.case_label,
          },
          outputDeckPath,
          deckDir,
          environment,
          baseDir: resolve(options.baseDir ?? process.cwd()),
          where,
        });
        return;
      }
      if (row.system !== BASELINE_SYSTEM) {
        const configured = Object.keys(generators);
        throw new InputError(
          `system "${row.system}" is neither the built-in ${BASELINE_SYSTEM} nor a generator of the config (${configured.length > 0 ? `configured: ${configured.join(', ')}` : 'none configured under "generators"'}); use "xsb decks run-slidetailor" or "xsb decks import" for other external systems`,
          { file: where, code: 'unknown_system' },
        );
      }
      await generateBaselineDeckFromSource({
        sourceDocument: entry.sourceDocument,
        caseLabel: row.case_label,
        condition: row.condition,
        audience: row.audience,
        outputDeckPath,
        sourceContextFile: options.layout.sourceContextFile(row.case_label),
        caseMetadataFile: options.layout.sourceMetadataFile(row.case_label),
        ...(entry.promptPath ? { promptPath: entry.promptPath } : {}),
        deckDir,
        planner: options.planner,
        audienceProfiles: options.audienceProfiles,
        ...(options.maxSlides ? { maxSlides: options.maxSlides } : {}),
      });
    },
  });
}
