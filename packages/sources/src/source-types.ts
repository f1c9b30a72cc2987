import type { SourcePageFurniture, SourcePageSpan } from './schemas/source-context';
import type { SourceMetadata, SourceType } from './schemas/source-metadata';

/** The PDF parsers stage 1 can use; `unpdf` is local and the default, `mineru` calls a MinerU service. */
export type PdfParserName = 'unpdf' | 'mineru';
export const PDF_PARSERS: readonly PdfParserName[] = ['unpdf', 'mineru'];

export type SourceParserName = PdfParserName | 'html' | 'markdown' | 'text' | 'docx' | 'odt' | 'pptx';

/** One case folder `<data>/sources/<case_id>/`. */
export interface SourceCase {
  caseId: string;
  dir: string;
  sourceFile: string;
  sourceType: SourceType;
  metadata: SourceMetadata;
}

export interface ExtractedSource {
  text: string;
  parser: SourceParserName;
  /** Offsets of each page in `text`; pages cut away by `maxChars` are absent. */
  pages: SourcePageSpan[];
  pageCount: number;
  /** Running headers/footers and page numbers, left in `text` and marked so probe generation skips them. */
  furniture: SourcePageFurniture[];
  sourceSha256: string;
  /** Length of the text before the `maxChars` cut (after the page selection). */
  originalChars: number;
  truncated: boolean;
  maxChars: number;
  /** `--pages` in canonical spelling (`1-5,9`); undefined when all pages were kept. */
  pageRange?: string;
}

export interface ExtractSourceOptions {
  /** Spec 000 `source_chars`. */
  maxChars?: number;
  /** PDF pages kept (`1-5,9`) before the `maxChars` cut; other source types ignore it. */
  pages?: string;
  pdfParser?: PdfParserName;
  env?: Record<string, string | undefined>;
  mineruCacheDir?: string;
  /** Defaults: 100 MiB for any source, 32 MiB for HTML. */
  maxSourceBytes?: number;
  maxHtmlBytes?: number;
  /** MinerU's HTTP client (tests, proxies); `env` holds its MINERU_* variables. */
  fetch?: typeof fetch;
  mineruPollIntervalMs?: number;
  mineruTimeoutMs?: number;
}

export interface PrepareSourceContextOptions extends ExtractSourceOptions {
  force?: boolean;
  /** Reuse a PDF context whichever parser made it: `xsb probes` must not redo `--pdf-parser mineru`. */
  keepPdfParser?: boolean;
  /** Unset `maxChars`/`pages` take the current context's: `xsb probes` keeps `--source-chars 8000`. */
  keepSourceSelection?: boolean;
  /** False: extract without writing (a cost plan reads what stage 1 would make). */
  persist?: boolean;
}

export interface PreparedSourceContext {
  extracted: ExtractedSource;
  skipped: boolean;
  contextFile: string;
  contextMetaFile: string;
}

export type SourceContextText = Omit<ExtractedSource, 'originalChars'>;

/** Spec 000's preferred `source_chars` for large-context models. */
export const DEFAULT_SOURCE_CHARS = 1_000_000;
export const DEFAULT_MAX_SOURCE_BYTES = 100 * 1024 * 1024;
/** The parsed tree takes ~35× the page's size in memory (a 50 MB page needed 1.8 GB). */
export const DEFAULT_MAX_HTML_BYTES = 32 * 1024 * 1024;
/** `extractor_version` of `source_context.json`: a context made by other rules is redone. */
export const SOURCE_EXTRACTOR_VERSION = 3;
