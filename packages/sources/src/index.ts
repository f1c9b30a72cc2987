export { extractPlainText } from './decode-utf8-text';
export { detectPageFurniture, PAGE_FURNITURE_RULES } from './detect-page-furniture';
export {
  type DiscoveredSources,
  discoverSourceCases,
  loadSourceCase,
  SOURCE_METADATA_FILE,
  sourceTypeForFile,
} from './discover-source-cases';
export { extractHtmlText, htmlToText } from './extract-html-text';
export { extractOfficeText } from './extract-office-text';
export { extractPdfPages, joinPages } from './extract-pdf-text';
export { cutToMaxChars, extractSourceText } from './extract-source-text';
export { DROPPED_ARIA_ROLES, DROPPED_HTML_ELEMENTS } from './html-page-chrome';
export { mapMathFontGlyphs, mathFontFamily, resolveCombiningMarks } from './map-math-font-glyphs';
export { parsePdfWithMineru, resolveMineruCacheDir } from './mineru-client';
export { assertPagesExist, parsePageRange } from './page-range';
export {
  prepareSourceContext,
  readSourceContext,
  sourceContextMetaFile,
} from './prepare-source-context';
export { discoverSelectedCases } from './select-source-cases';
export {
  DEFAULT_MAX_HTML_BYTES,
  DEFAULT_SOURCE_CHARS,
  type ExtractedSource,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  SOURCE_EXTRACTOR_VERSION,
  type SourceCase,
} from './source-types';
