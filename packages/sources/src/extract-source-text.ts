import { readFile, stat } from 'node:fs/promises';
import { hashBytes, InputError, UsageError } from '@xsb/core';
import { extractPlainText } from './decode-utf8-text';
import { detectPageFurniture } from './detect-page-furniture';
import { extractHtmlText } from './extract-html-text';
import { extractOfficeText } from './extract-office-text';
import { extractPdfPages, joinPages } from './extract-pdf-text';
import { parsePdfWithMineru, resolveMineruCacheDir } from './mineru-client';
import { assertPagesExist, type PageRange, parsePageRange } from './page-range';
import type { SourcePageFurniture, SourcePageSpan } from './schemas/source-context';
import {
  DEFAULT_MAX_HTML_BYTES,
  DEFAULT_MAX_SOURCE_BYTES,
  DEFAULT_SOURCE_CHARS,
  type ExtractedSource,
  type ExtractSourceOptions,
  PDF_PARSERS,
  type PdfParserName,
  type SourceCase,
} from './source-types';

/** Checks `maxChars`: a positive integer (spec 000 `source_chars`). */
export function resolveMaxChars(maxChars: number | undefined): number {
  const value = maxChars ?? DEFAULT_SOURCE_CHARS;
  if (!Number.isInteger(value) || value <= 0) {
    throw new UsageError(`source chars must be a positive integer, got ${String(maxChars)}`);
  }
  return value;
}

export function resolvePdfParser(parser: string | undefined): PdfParserName {
  const value = parser ?? 'unpdf';
  if (!(PDF_PARSERS as readonly string[]).includes(value)) {
    throw new UsageError(
      `unknown PDF parser ${JSON.stringify(value)}; use one of: ${PDF_PARSERS.join(', ')}`,
    );
  }
  return value as PdfParserName;
}

export async function readSourceBytes(
  file: string,
  maxBytes = DEFAULT_MAX_SOURCE_BYTES,
): Promise<Uint8Array> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new InputError(`cannot read (${(error as Error).message})`, { file, cause: error });
  }
  if (size === 0) throw new InputError('the file is empty (0 bytes)', { file, code: 'empty_file' });
  if (size > maxBytes) {
    throw new InputError(
      `the file is too large (${size} bytes; the limit is ${maxBytes} bytes): split it or raise maxSourceBytes`,
      { file, code: 'file_too_large' },
    );
  }
  return new Uint8Array(await readFile(file));
}

/** Spec 000 stage 1: the text of one source, cut to `maxChars` after extraction. */
export async function extractSourceText(
  sourceCase: Pick<SourceCase, 'sourceFile' | 'sourceType'>,
  options: ExtractSourceOptions = {},
): Promise<ExtractedSource> {
  const maxChars = resolveMaxChars(options.maxChars);
  const file = sourceCase.sourceFile;
  // Pages select from a PDF only; other cases of a run given `--pages` are read whole.
  const pageRange =
    options.pages !== undefined && sourceCase.sourceType === 'pdf'
      ? parsePageRange(options.pages)
      : undefined;
  const bytes = await readSourceBytes(file, options.maxSourceBytes);
  const sourceSha256 = hashBytes(bytes);
  const raw =
    sourceCase.sourceType === 'pdf'
      ? await extractPdf(bytes, file, { sourceSha256, pageRange, options })
      : extractDocument(bytes, file, sourceCase.sourceType, options);
  const { text, truncated, pages, furniture } = clipToMaxChars(raw, maxChars);
  return {
    text,
    parser: raw.parser,
    pages,
    pageCount: raw.pageCount,
    furniture,
    sourceSha256,
    originalChars: raw.full.length,
    truncated,
    maxChars,
    ...(pageRange ? { pageRange: pageRange.spec } : {}),
  };
}

/** A source's whole text as its parser read it, before `maxChars`. */
interface RawExtraction {
  full: string;
  spans: SourcePageSpan[];
  furniture: SourcePageFurniture[];
  pageCount: number;
  parser: ExtractedSource['parser'];
}

async function extractPdf(
  bytes: Uint8Array,
  file: string,
  at: { sourceSha256: string; pageRange: PageRange | undefined; options: ExtractSourceOptions },
): Promise<RawExtraction> {
  const { options, pageRange } = at;
  if (resolvePdfParser(options.pdfParser) === 'unpdf') {
    const { pages } = await extractPdfPages(bytes, file);
    const selected = selectPages(pages, pageRange, file);
    const { text: full, spans, furniture } = selected;
    return { full, spans, furniture, pageCount: pages.length, parser: 'unpdf' };
  }
  if (pageRange) {
    throw new UsageError(
      `page range ${pageRange.spec} needs the unpdf parser: MinerU's output has no page boundaries`,
    );
  }
  const env = options.env ?? process.env;
  const parsed = await parsePdfWithMineru(bytes, file, {
    env,
    sourceSha256: at.sourceSha256,
    cacheDir: options.mineruCacheDir ?? resolveMineruCacheDir(env),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.mineruPollIntervalMs !== undefined ? { pollIntervalMs: options.mineruPollIntervalMs } : {}),
    ...(options.mineruTimeoutMs !== undefined ? { timeoutMs: options.mineruTimeoutMs } : {}),
  });
  return { full: parsed.markdown, spans: [], furniture: [], pageCount: 0, parser: 'mineru' };
}

function extractDocument(
  bytes: Uint8Array,
  file: string,
  sourceType: Exclude<SourceCase['sourceType'], 'pdf'>,
  options: ExtractSourceOptions,
): RawExtraction {
  const plain = (full: string, parser: RawExtraction['parser']): RawExtraction => ({
    full,
    spans: [],
    furniture: [],
    pageCount: 0,
    parser,
  });
  switch (sourceType) {
    case 'html':
      assertHtmlSize(bytes, file, options.maxHtmlBytes ?? DEFAULT_MAX_HTML_BYTES);
      return plain(extractHtmlText(bytes, file), 'html');
    case 'markdown':
    case 'text':
      return plain(extractPlainText(bytes, file), sourceType);
    case 'docx':
    case 'odt':
    case 'pptx': {
      const office = extractOfficeText(bytes, file, sourceType);
      if (office.text === '') throw new InputError('the document holds no text', { file, code: 'no_text' });
      return { ...plain(office.text, sourceType), spans: office.pages, pageCount: office.pageCount };
    }
  }
}

/** `maxChars` applied to an extraction; a page starting past the cut is dropped. */
export function clipToMaxChars(
  raw: Pick<RawExtraction, 'full' | 'spans' | 'furniture'>,
  maxChars: number,
): { text: string; truncated: boolean; pages: SourcePageSpan[]; furniture: SourcePageFurniture[] } {
  const { text, truncated } = cutToMaxChars(raw.full, maxChars);
  const pages = raw.spans
    .filter((span) => span.start < text.length || (span.start === 0 && text.length === 0))
    .map((span) => ({ ...span, end: Math.min(span.end, text.length) }));
  // A furniture line cut by `maxChars` is no longer a whole line: only whole ones stay marked.
  const furniture = raw.furniture.filter((line) => line.end <= text.length);
  return { text, truncated, pages, furniture };
}

/** Furniture is found on the whole document (its rules count pages), then kept for the selected pages. */
function selectPages(
  pages: string[],
  range: PageRange | undefined,
  file: string,
): { text: string; spans: SourcePageSpan[]; furniture: SourcePageFurniture[] } {
  if (range) assertPagesExist(range, pages.length, file);
  const numbers = range ? range.pages : pages.map((_, index) => index + 1);
  const joined = joinPages(numbers.map((page) => pages[page - 1]!));
  const spans = joined.spans.map((span, index) => ({ ...span, page: numbers[index]! }));
  const startOf = new Map(spans.map((span) => [span.page, span.start]));
  const furniture = detectPageFurniture(pages).flatMap((line) => {
    const at = startOf.get(line.page);
    return at === undefined ? [] : [{ ...line, start: at + line.start, end: at + line.end }];
  });
  return { text: joined.text, spans, furniture };
}

function assertHtmlSize(bytes: Uint8Array, file: string, maxBytes: number): void {
  if (bytes.byteLength > maxBytes) {
    throw new InputError(
      `the HTML page is too large to read (${bytes.byteLength} bytes; the limit for HTML is ${maxBytes} bytes): save the article alone, or convert it to text or markdown`,
      { file, code: 'file_too_large' },
    );
  }
}

/** Backs off one UTF-16 unit rather than split a surrogate pair (a half pair is invalid UTF-8). */
export function cutToMaxChars(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}
