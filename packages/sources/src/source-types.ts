import type { SourcePageFurniture, SourcePageSpan } from './schemas/source-context';
import type { SourceMetadata, SourceType } from './schemas/source-metadata';

/** The PDF parsers stage 1 can use; `unpdf` is local and the default, `mineru` calls a MinerU service. */
export type PdfParserName = 'unpdf' | 'mineru';
export const PDF_PARSERS: readonly PdfParserName[] = ['unpdf', 'mineru'];

/** Which extractor produced a text: a PDF parser, or the reader for the other source types. */
export type SourceParserName = PdfParserName | 'html' | 'markdown' | 'text' | 'docx' | 'odt' | 'pptx';

/** One case folder `<data>/sources/<case_id>/`: its single source file and its completed metadata. */
export interface SourceCase {
  caseId: string;
  dir: string;
  /** Absolute path of the source file. */
  sourceFile: string;
  sourceType: SourceType;
  metadata: SourceMetadata;
}

export interface ExtractedSource {
  /** The text after cleanup and the `maxChars` cut. */
  text: string;
  parser: SourceParserName;
  /** Char offsets of each PDF page in `text` (pages cut away by `maxChars` are absent); `[]` for non-PDF sources. */
  pages: SourcePageSpan[];
  /** Pages in the source document (0 for non-PDF sources). */
  pageCount: number;
  /**
   * Running headers/footers and page numbers in `text` (whole lines, offsets in `text`), left in
   * the text and marked so that probe generation skips them; `[]` for non-PDF sources and MinerU.
   */
  furniture: SourcePageFurniture[];
  sourceSha256: string;
  /** Length of the text before the `maxChars` cut (after the page selection). */
  originalChars: number;
  truncated: boolean;
  /** The `maxChars` the text was cut to (recorded as `max_chars`). */
  maxChars: number;
  /** The PDF pages kept (`--pages`, canonical spelling such as `1-5,9`); undefined when all were. */
  pageRange?: string;
}

export interface ExtractSourceOptions {
  /** Characters kept after extraction (spec 000 `source_chars`); default {@link DEFAULT_SOURCE_CHARS}. */
  maxChars?: number;
  /**
   * PDF pages kept (`1-40`, `1-5,9`), before the `maxChars` cut; default all. Other source types
   * ignore it. A page beyond the document's last is a UsageError; needs the unpdf parser.
   */
  pages?: string;
  /** Default `unpdf`. */
  pdfParser?: PdfParserName;
  /** Where MINERU_* variables are read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Cache folder for MinerU markdown; default `XSLIDESBENCH_MINERU_CACHE_DIR`, else no cache. */
  mineruCacheDir?: string;
  /** Largest source file accepted, in bytes; default {@link DEFAULT_MAX_SOURCE_BYTES}. */
  maxSourceBytes?: number;
  /** Largest HTML page accepted, in bytes (it is parsed into a tree); default {@link DEFAULT_MAX_HTML_BYTES}. */
  maxHtmlBytes?: number;
  /** HTTP client for MinerU (tests and proxies); default global `fetch`. */
  fetch?: typeof fetch;
  /** Polling interval for the hosted MinerU API in ms; default 3000. */
  mineruPollIntervalMs?: number;
  /** Give up on a hosted MinerU task after this many ms; default 10 minutes. */
  mineruTimeoutMs?: number;
}

export interface PrepareSourceContextOptions extends ExtractSourceOptions {
  /** Re-extract and rewrite even when the existing context matches the source hash and settings. */
  force?: boolean;
  /**
   * Reuse a current PDF context whichever PDF parser made it; `pdfParser` then only decides how a
   * missing or stale context is made. Later stages set it: stage 1 chose the parser (e.g.
   * `xsb sources --pdf-parser mineru`), and `xsb probes` without that flag must not silently redo the
   * extraction with the default parser.
   */
  keepPdfParser?: boolean;
  /**
   * Keep the retained source stage 1 decided: when `maxChars` or `pages` is not given, the current
   * context's `max_chars` and `page_range` are used (also to redo a stale context), not the defaults.
   * Later stages set it, so `xsb sources --source-chars 8000` is not undone by a plain `xsb probes`.
   */
  keepSourceSelection?: boolean;
  /**
   * Write `source_context.txt` and its record (default true). False extracts and returns the text
   * without writing anything (a cost plan reads what stage 1 would make).
   */
  persist?: boolean;
}

export interface PreparedSourceContext {
  extracted: ExtractedSource;
  /** True when the existing files were current and nothing was extracted or written. */
  skipped: boolean;
  contextFile: string;
  contextMetaFile: string;
}

export interface SourceContextText {
  text: string;
  pages: SourcePageSpan[];
  furniture: SourcePageFurniture[];
  parser: SourceParserName;
  sourceSha256: string;
  pageCount: number;
  truncated: boolean;
  maxChars: number;
  pageRange?: string;
}

/** Spec 000's preferred `source_chars` for large-context models. */
export const DEFAULT_SOURCE_CHARS = 1_000_000;
/** Sources larger than this are refused before they are read: 100 MiB. */
export const DEFAULT_MAX_SOURCE_BYTES = 100 * 1024 * 1024;
/**
 * HTML pages larger than this are refused: the parsed tree takes about 35 times the page's size in
 * memory (a 50 MB page needed 1.8 GB), and a page that size is an export or a dump, not one document.
 */
export const DEFAULT_MAX_HTML_BYTES = 32 * 1024 * 1024;
/**
 * The version of the extraction rules (HTML reading region and chrome, PDF page furniture, TeX
 * math-font glyphs; 3 added the glyphs and the office formats), recorded
 * in `source_context.json` as `extractor_version`: a context made by other rules is redone.
 */
export const SOURCE_EXTRACTOR_VERSION = 3;
