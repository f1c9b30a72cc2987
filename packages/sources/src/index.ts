export { extractPlainText } from './decode-utf8-text';
export { detectPageFurniture, PAGE_FURNITURE_RULES, type PdfPageFurniture } from './detect-page-furniture';
export {
  type DiscoveredSources,
  discoverSourceCases,
  loadSourceCase,
  SOURCE_METADATA_FILE,
  sourceTypeForFile,
} from './discover-source-cases';
export { extractHtmlText, htmlToText } from './extract-html-text';
export { extractOfficeText, type OfficeSourceType, type OfficeText } from './extract-office-text';
export { extractPdfPages, joinPages, PAGE_SEPARATOR, type PdfPages } from './extract-pdf-text';
export {
  cutToMaxChars,
  extractSourceText,
  readSourceBytes,
  resolveMaxChars,
  resolvePdfParser,
} from './extract-source-text';
export { DROPPED_ARIA_ROLES, DROPPED_HTML_ELEMENTS } from './html-page-chrome';
export { mapMathFontGlyphs, mathFontFamily, resolveCombiningMarks } from './map-math-font-glyphs';
export {
  type MineruParseOptions,
  type MineruParseResult,
  parsePdfWithMineru,
  resolveMineruCacheDir,
} from './mineru-client';
export { assertPagesExist, type PageRange, parsePageRange } from './page-range';
export {
  prepareSourceContext,
  readSourceContext,
  sourceContextMetaFile,
} from './prepare-source-context';
export {
  DEFAULT_MAX_HTML_BYTES,
  DEFAULT_MAX_SOURCE_BYTES,
  DEFAULT_SOURCE_CHARS,
  type ExtractedSource,
  type ExtractSourceOptions,
  PDF_PARSERS,
  type PdfParserName,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  SOURCE_EXTRACTOR_VERSION,
  type SourceCase,
  type SourceContextText,
  type SourceParserName,
} from './source-types';
