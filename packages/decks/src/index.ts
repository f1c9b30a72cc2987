// The shard rule lives in @xsb/core (every per-case stage shards by it); re-exported for decks' users.
export { isCaseInShard, parseShard, shardOfCase } from '@xsb/core';
export { checkRunSheet, runSheetProblemsError } from './check-run-sheet';
export { countVisibleWords } from './count-visible-words';
export { readDataCases, readImportedSystems } from './data-cases';
export { audienceLabel, SCAFFOLDING_LANGUAGES, scaffoldingFor } from './deck-scaffolding';
export { deckStatsFor, writeDeckStats } from './deck-stats';
export { formatDeckText } from './deck-text';
export { detectSourceLanguage, stopLanguageDetector } from './detect-source-language';
export { findDeckFile } from './find-deck-file';
export { BASELINE_SYSTEM, generateBaselineDeck } from './generate-baseline-deck';
export {
  type DeckWorkListOptions,
  deckGenerationWorkList,
  generateBaselineDeckFromSource,
  generateDecksFromRunSheet,
  OUTLINE_STAGE,
} from './generate-decks-from-run-sheet';
export { importExternalDecks } from './import-external-decks';
export { loadSourceText, withoutPageFurniture } from './load-source-text';
export { deckBatchSummaryCombiner } from './merge-batch-summaries';
export { BulletRegister, jaccard, NEAR_COPY_JACCARD, normaliseText, textTokens } from './near-duplicate-text';
export { type InheritedXfrm, placeholderGeometryResolver } from './placeholder-geometry';
export { planLexicalOutline } from './plan-lexical-outline';
export { buildOutlineRequest, planLlmOutline } from './plan-llm-outline';
export { defaultSlideTailorRunSheet, prepareSlideTailor } from './prepare-slidetailor';
export { readCaseMetadata } from './read-case-metadata';
export { detectDeckFormat, readDeck } from './read-deck';
export { listRunSystems, removeSystemFromRun } from './remove-system';
export { convertPptxToPdf, findSoffice, renderDeck, runSofficeToPdf } from './render-deck';
export { generatorArgv, resolveGeneratorEnv, runCommandGenerator } from './run-command-generator';
export {
  type DeckRowFilters,
  type DeckRowUnit,
  type DeckRowUnitInput,
  type DeckRowWork,
  runDeckRows,
} from './run-deck-rows';
export {
  RUN_SHEET_COLUMNS,
  type RunSheet,
  readRunSheet,
  singleRowRunSheet,
  writeCsvAtomic,
} from './run-sheet';
export { runSlideTailor, splitCommand } from './run-slidetailor';
export { truncateDeck } from './truncate-deck';
export { writeOutlinePptx } from './write-outline-pptx';
