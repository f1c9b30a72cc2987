export { detectSourceLanguage, stopLanguageDetector } from './detect-source-language';
export {
  type DiscoveredSources,
  discoverSourceCases,
  loadSourceCase,
  SOURCE_METADATA_FILE,
  sourceTypeForFile,
} from './discover-source-cases';
export { extractPdfPages } from './extract-pdf-text';
export { extractSourceText } from './extract-source-text';
export { parsePdfWithMineru, resolveMineruCacheDir } from './mineru-client';
export { parsePageRange } from './page-range';
export {
  prepareSourceContext,
  readSourceContext,
  sourceContextMetaFile,
} from './prepare-source-context';
export { findReferenceDeck, REFERENCE_DECK_NAMES } from './reference-deck';
export { type SourcePageFurniture, type SourcePageSpan, sourceContextSchema } from './schemas/source-context';
export {
  type SourceMetadataInput,
  sourceMetadataInputSchema,
  sourceMetadataSchema,
} from './schemas/source-metadata';
export { discoverSelectedCases } from './select-source-cases';
export {
  DEFAULT_SOURCE_CHARS,
  type ExtractedSource,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  SOURCE_EXTRACTOR_VERSION,
  type SourceCase,
} from './source-types';
