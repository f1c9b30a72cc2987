export { extractPlainText } from './decode-utf8-text';
export {
  type DiscoveredSources,
  discoverSourceCases,
  loadSourceCase,
  SOURCE_METADATA_FILE,
  sourceTypeForFile,
} from './discover-source-cases';
export { decodeHtmlEntities, extractHtmlText, htmlToText } from './extract-html-text';
export { extractPdfPages, joinPages, PAGE_SEPARATOR, type PdfPages } from './extract-pdf-text';
export {
  cutToMaxChars,
  extractSourceText,
  readSourceBytes,
  resolveMaxChars,
  resolvePdfParser,
} from './extract-source-text';
export {
  type MineruParseOptions,
  type MineruParseResult,
  parsePdfWithMineru,
  resolveMineruCacheDir,
} from './mineru-client';
export {
  prepareSourceContext,
  readSourceContext,
  sourceContextMetaFile,
} from './prepare-source-context';
export {
  DEFAULT_MAX_SOURCE_BYTES,
  DEFAULT_SOURCE_CHARS,
  type ExtractedSource,
  type ExtractSourceOptions,
  PDF_PARSERS,
  type PdfParserName,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  type SourceCase,
  type SourceContextText,
  type SourceParserName,
} from './source-types';
