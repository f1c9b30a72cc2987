export { countVisibleWords } from './count-visible-words';
export { type DeckStatsFiles, deckStatsFor, writeDeckStats } from './deck-stats';
export { formatDeckText } from './deck-text';
export { findDeckFile } from './find-deck-file';
export {
  BASELINE_SYSTEM,
  type BaselineDeckRequest,
  type BaselineDeckResult,
  generateBaselineDeck,
} from './generate-baseline-deck';
export {
  type AudienceDescription,
  type GenerateDecksOptions,
  generateDecksFromRunSheet,
} from './generate-decks-from-run-sheet';
export {
  type ImportDecksOptions,
  type ImportDecksResult,
  importExternalDecks,
} from './import-external-decks';
export { loadSourceText } from './load-source-text';
export { type LexicalOutlineOptions, planLexicalOutline } from './plan-lexical-outline';
export { type LlmOutlineInput, planLlmOutline } from './plan-llm-outline';
export {
  defaultSlideTailorRunSheet,
  type PrepareSlideTailorOptions,
  type PrepareSlideTailorResult,
  prepareSlideTailor,
  SLIDETAILOR_RUN_SHEET_COLUMNS,
  SLIDETAILOR_SYSTEM,
} from './prepare-slidetailor';
export { type DeckFormat, detectDeckFormat, type ReadDeckOptions, readDeck } from './read-deck';
export {
  convertPptxToPdf,
  findSoffice,
  type RenderDeckOptions,
  renderDeck,
} from './render-deck';
export {
  type DeckRowFilters,
  type DeckRowTask,
  type RunDeckRowsOptions,
  runDeckRows,
} from './run-deck-rows';
export {
  type InvalidRunSheetRow,
  RUN_SHEET_COLUMNS,
  type RunSheet,
  type RunSheetEntry,
  readRunSheet,
  writeCsvAtomic,
} from './run-sheet';
export { type RunSlideTailorOptions, runSlideTailor, splitCommand } from './run-slidetailor';
export { isCaseInShard, parseShard, type Shard, shardOfCase } from './shard-case';
export { truncateDeck } from './truncate-deck';
export { writeOutlinePptx } from './write-outline-pptx';
