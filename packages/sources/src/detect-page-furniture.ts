import type { SourcePageFurniture } from './schemas/source-context';

/** A line is running when seen on `minShare` of the pages and on `minPages`; longer than `maxLineChars` is body text. */
export const PAGE_FURNITURE_RULES = { minPages: 3, minShare: 0.5, bandLines: 2, maxLineChars: 120 } as const;

type Band = 'top' | 'bottom';

/** Offsets within that page's text, not the joined text. */
export type PdfPageFurniture = SourcePageFurniture;

interface BandLine {
  page: number;
  band: Band;
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
 * Running headers, footers and page numbers (no probe material). A band line is furniture when
 * 1. its normal form recurs in the same band on enough pages; only bare page numbers have their digits
 *    folded, so body lines that differ only in their numbers stay apart; or
 * 2. it is outermost in its band (or next in, after furniture) and carries the page's printed number
 *    (page + d for the document's dominant offset d): this catches headers whose title changes with
 *    the chapter ("4 1.1. TOPOLOGISCHE RÄUME", "7 1.2. …").
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

/** Ties go to the smallest |d|, then the smallest d. */
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
