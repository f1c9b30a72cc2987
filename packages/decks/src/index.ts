// The shard rule lives in @xsb/core (every per-case stage shards by it); re-exported for decks' users.
export { countVisibleWords } from './count-visible-words';
export { deckStatsFor, writeDeckStats } from './deck-stats';
export { formatDeckText } from './deck-text';
export { findDeckFile } from './find-deck-file';
export { BASELINE_SYSTEM, generateBaselineDeck } from './generate-baseline-deck';
export {
  deckGenerationWorkList,
  generateBaselineDeckFromSource,
  generateDecksFromRunSheet,
  OUTLINE_STAGE,
} from './generate-decks-from-run-sheet';
export { importExternalDecks } from './import-external-decks';
export { deckBatchSummaryCombiner } from './merge-batch-summaries';
export { type InheritedXfrm, placeholderGeometryResolver } from './placeholder-geometry';
export { planLexicalOutline } from './plan-lexical-outline';
export { planLlmOutline } from './plan-llm-outline';
export { defaultSlideTailorRunSheet, prepareSlideTailor } from './prepare-slidetailor';
export { detectDeckFormat, readDeck } from './read-deck';
export { removeSystemFromRun } from './remove-system';
export { convertPptxToPdf, findSoffice, renderDeck, runSofficeToPdf } from './render-deck';
export { runCommandGenerator } from './run-command-generator';
export type { DeckRowFilters } from './run-deck-rows';
export {
  RUN_SHEET_COLUMNS,
  type RunSheet,
  readRunSheet,
  singleRowRunSheet,
  writeCsvAtomic,
} from './run-sheet';
export { runSlideTailor } from './run-slidetailor';
export { deckImportManifestSchema } from './schemas/deck-import-manifest';
export { deckOutlineSchema } from './schemas/deck-outline';
export {
  type DeckBatchSummary,
  deckBatchSummarySchema,
  deckRowStatusSchema,
} from './schemas/deck-run-status';
export { slidetailorConfigSchema, slidetailorPreferenceSchema } from './schemas/slidetailor-job';
export { SlideRenderStore } from './slide-render-store';
export { truncateDeck } from './truncate-deck';
export { writeOutlinePptx } from './write-outline-pptx';
