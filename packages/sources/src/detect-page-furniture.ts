import type { SourcePageFurniture } from './schemas/source-context';

/**
 * The thresholds of {@link detectPageFurniture}: a document needs `minPages` pages; a line or a page
 * numbering counts as running when it is seen on at least `minShare` of the pages (and on at least
 * `minPages` of them); the top and bottom bands are the first and last `bandLines` non-empty lines of
 * a page; a line longer than `maxLineChars` is body text, never furniture.
 */
export const PAGE_FURNITURE_RULES = { minPages: 3, minShare: 0.5, bandLines: 2, maxLineChars: 120 } as const;

type Band = 'top' | 'bottom';

/** One furniture line of a page: `start`/`end` are offsets within that page's text (not the joined text). */
export type PdfPageFurniture = SourcePageFurniture;

interface BandLine {
  page: number;
  band: Band;
  /** Rank from the page edge: 0 is the first (top) or last (bottom) non-empty line. */
  rank: number;
  start: number;
  end: number;
  text: string;
  normal: string;
}

/** "12", "- 12 -", "(12)", "Page 12", "p. 12", "Seite 12", "12 of 40", "Page 12 / 40". */
const BARE_PAGE_NUMBER =
  /^(?:(?:page|pg\.?|p\.|seite|s\.)\s*)?[-–—(]?\s*(\d{1,4})\s*[-–—)]?(?:\s*(?:of|\/|von|de|sur)\s*\d{1,4})?$/i;
const LEADING_NUMBER = /^(\d{1,4})\s+\S/;
const TRAILING_NUMBER = /\S\s+(\d{1,4})$/;
const NUMBER_OF_TOTAL = /\b(\d{1,4})\s*(?:of|\/|von)\s*\d{1,4}\b/i;

/**
 * Page furniture of a PDF: running headers and footers and page numbers, which a reader skips and
 * which are no probe material. Page texts are those of `extractPdfPages` (page 1 first); offsets in
 * the result are within each page's text, whole lines. A band line is furniture when
 *
 * 1. its normal form (NFKC, lower case, whitespace collapsed; in a bare page number such as "12",
 *    "- 12 -" or "Page 12 of 40" every digit run also becomes `#`) occurs in the same band (top or
 *    bottom) of at least half of the pages, and of at least 3: a constant running title or footer
 *    line, or page numbers (also where the numbering restarts). Body lines that differ only in their
 *    numbers ("grew by 10 percent in year 1", "… 20 percent in year 2") are not one line; or
 * 2. it is the outermost line of its band (or the next one in, when the outermost is furniture) and
 *    carries the page's printed number: the document's printed numbers run in step with the page
 *    index (printed = page + d for one offset d on at least half of the pages, and on 3), and this
 *    line's leading, trailing, bare or "N of M" number is page + d. This catches running headers
 *    whose title changes with the chapter ("4 1.1. TOPOLOGISCHE RÄUME", "5 1.1. …", "7 1.2. …").
 *
 * A bare number (or "Page N", "N of M") is `page_number`; another line is `running_header` in the
 * top band and `running_footer` in the bottom one. Documents under 3 pages have none. Text is never
 * changed here: callers mark these lines, and the page locators stay as they were.
 */
export function detectPageFurniture(pages: readonly string[]): PdfPageFurniture[] {
  const { minPages, minShare, bandLines } = PAGE_FURNITURE_RULES;
  if (pages.length < minPages) return [];
  const needed = Math.max(minPages, Math.ceil(minShare * pages.length));
  const bands = pages.map((text, index) => bandLinesOf(text, index + 1, bandLines));
  const repeated = repeatedLines(bands.flat(), needed);
  const offset = dominantPageOffset(bands, needed);
  const found = new Map<string, PdfPageFurniture>();
  const mark = (line: BandLine) => {
    const key = `${line.page}:${line.start}`;
    if (!found.has(key))
      found.set(key, { page: line.page, start: line.start, end: line.end, kind: kindOf(line) });
  };
  for (const pageBands of bands) {
    for (const band of ['top', 'bottom'] as const) {
      const lines = pageBands.filter((line) => line.band === band).sort((a, b) => a.rank - b.rank);
      let outerIsFurniture = true;
      for (const line of lines) {
        const numbered: boolean =
          offset !== undefined && outerIsFurniture && printedNumbers(line.text).includes(line.page + offset);
        const isFurniture: boolean = repeated.has(`${band}\u0000${line.normal}`) || numbered;
        if (isFurniture) mark(line);
        outerIsFurniture &&= isFurniture;
      }
    }
  }
  return [...found.values()].sort((a, b) => a.page - b.page || a.start - b.start);
}

function bandLinesOf(text: string, page: number, count: number): BandLine[] {
  const lines: Array<{ start: number; end: number; text: string }> = [];
  let start = 0;
  for (const raw of text.split('\n')) {
    const trimmed = raw.trim();
    if (trimmed !== '') {
      const lead = raw.length - raw.trimStart().length;
      lines.push({ start: start + lead, end: start + lead + trimmed.length, text: trimmed });
    }
    start += raw.length + 1;
  }
  const out: BandLine[] = [];
  const take = (line: (typeof lines)[number], band: Band, rank: number) => {
    if (line.text.length <= PAGE_FURNITURE_RULES.maxLineChars)
      out.push({ ...line, page, band, rank, normal: normalLine(line.text) });
  };
  lines.slice(0, count).forEach((line, rank) => {
    take(line, 'top', rank);
  });
  lines
    .slice(-count)
    .reverse()
    .forEach((line, rank) => {
      take(line, 'bottom', rank);
    });
  return out;
}

function normalLine(text: string): string {
  const normal = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return BARE_PAGE_NUMBER.test(text) ? normal.replace(/\d+/g, '#') : normal;
}

/** `band\0normal` of the band lines seen on at least `needed` distinct pages in the same band. */
function repeatedLines(lines: readonly BandLine[], needed: number): Set<string> {
  const pagesOf = new Map<string, Set<number>>();
  for (const line of lines) {
    const key = `${line.band}\u0000${line.normal}`;
    const pages = pagesOf.get(key) ?? new Set<number>();
    pages.add(line.page);
    pagesOf.set(key, pages);
  }
  return new Set([...pagesOf].filter(([, pages]) => pages.size >= needed).map(([key]) => key));
}

/**
 * The offset d with printed page number = page index + d seen on the most pages (ties: the smallest
 * |d|, then the smallest d), among the outermost line of each band; undefined below `needed` pages.
 */
function dominantPageOffset(bands: ReadonlyArray<readonly BandLine[]>, needed: number): number | undefined {
  const pagesOf = new Map<number, Set<number>>();
  for (const line of bands.flat()) {
    if (line.rank !== 0) continue;
    for (const value of printedNumbers(line.text)) {
      const offset = value - line.page;
      const pages = pagesOf.get(offset) ?? new Set<number>();
      pages.add(line.page);
      pagesOf.set(offset, pages);
    }
  }
  let best: { offset: number; pages: number } | undefined;
  for (const [offset, pages] of pagesOf) {
    const better =
      !best ||
      pages.size > best.pages ||
      (pages.size === best.pages &&
        (Math.abs(offset) < Math.abs(best.offset) ||
          (Math.abs(offset) === Math.abs(best.offset) && offset < best.offset)));
    if (better) best = { offset, pages: pages.size };
  }
  return best && best.pages >= needed ? best.offset : undefined;
}

/** The numbers a running line may print as its page number: bare, leading, trailing, or "N of M". */
function printedNumbers(text: string): number[] {
  const values = new Set<number>();
  for (const pattern of [BARE_PAGE_NUMBER, LEADING_NUMBER, TRAILING_NUMBER, NUMBER_OF_TOTAL]) {
    const match = pattern.exec(text);
    if (match) values.add(Number(match[1]));
  }
  return [...values];
}

function kindOf(line: BandLine): PdfPageFurniture['kind'] {
  if (BARE_PAGE_NUMBER.test(line.text)) return 'page_number';
  return line.band === 'top' ? 'running_header' : 'running_footer';
}
