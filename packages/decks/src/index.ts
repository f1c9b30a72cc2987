// The shard rule lives in @xsb/core (every per-case stage shards by it); re-exported for decks' users.
export { isCaseInShard, parseShard, type Shard, shardOfCase } from '@xsb/core';
export {
  type CheckedRunSheet,
  type CheckRunSheetOptions,
  checkRunSheet,
  type RunSheetProblem,
  runSheetProblemsError,
} from './check-run-sheet';
export { countVisibleWords } from './count-visible-words';
export { type DataCase, readDataCases, readImportedSystems } from './data-cases';
export {
  audienceLabel,
  type DeckScaffolding,
  SCAFFOLDING_LANGUAGES,
  type ScaffoldingLanguage,
  scaffoldingFor,
} from './deck-scaffolding';
export { type DeckStatsFiles, deckStatsFor, writeDeckStats } from './deck-stats';
export { formatDeckText } from './deck-text';
export { detectSourceLanguage, stopLanguageDetector } from './detect-source-language';
export { findDeckFile } from './find-deck-file';
export {
  BASELINE_SYSTEM,
  type BaselineDeckRequest,
  type BaselineDeckResult,
  generateBaselineDeck,
} from './generate-baseline-deck';
export {
  type AudienceDescription,
  type BaselineDeckFromSource,
  type DeckWorkListOptions,
  deckGenerationWorkList,
  type GenerateDecksOptions,
  generateBaselineDeckFromSource,
  generateDecksFromRunSheet,
  OUTLINE_STAGE,
} from './generate-decks-from-run-sheet';
export {
  type ImportDecksOptions,
  type ImportDecksResult,
  importExternalDecks,
} from './import-external-decks';
export { loadSourceText, withoutPageFurniture } from './load-source-text';
export { deckBatchSummaryCombiner } from './merge-batch-summaries';
export { BulletRegister, jaccard, NEAR_COPY_JACCARD, normaliseText, textTokens } from './near-duplicate-text';
export {
  type InheritedXfrm,
  type PlaceholderRef,
  placeholderGeometryResolver,
} from './placeholder-geometry';
export { type LexicalOutlineOptions, planLexicalOutline } from './plan-lexical-outline';
export { buildOutlineRequest, type LlmOutlineInput, planLlmOutline } from './plan-llm-outline';
export {
  defaultSlideTailorRunSheet,
  type PrepareSlideTailorOptions,
  type PrepareSlideTailorResult,
  prepareSlideTailor,
  SLIDETAILOR_RUN_SHEET_COLUMNS,
  SLIDETAILOR_SYSTEM,
} from './prepare-slidetailor';
export { readCaseMetadata } from './read-case-metadata';
export { type DeckFormat, detectDeckFormat, type ReadDeckOptions, readDeck } from './read-deck';
export {
  listRunSystems,
  type RemoveSystemOptions,
  type RemoveSystemResult,
  removeSystemFromRun,
} from './remove-system';
export {
  convertPptxToPdf,
  findSoffice,
  type RenderDeckOptions,
  renderDeck,
  runSofficeToPdf,
} from './render-deck';
export {
  type CommandGeneratorRow,
  type GeneratorValues,
  generatorArgv,
  resolveGeneratorEnv,
  runCommandGenerator,
} from './run-command-generator';
export {
  type DeckRowFilters,
  type DeckRowTask,
  type DeckRowUnit,
  type DeckRowUnitInput,
  type DeckRowWork,
  type RunDeckRowsOptions,
  runDeckRows,
} from './run-deck-rows';
export {
  type InvalidRunSheetRow,
  RUN_SHEET_COLUMNS,
  type RunSheet,
  type RunSheetEntry,
  readRunSheet,
  singleRowRunSheet,
  writeCsvAtomic,
} from './run-sheet';
export { type RunSlideTailorOptions, runSlideTailor, splitCommand } from './run-slidetailor';
export { truncateDeck } from './truncate-deck';
export { writeOutlinePptx } from './write-outline-pptx';
