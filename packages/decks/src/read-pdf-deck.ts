import { type Deck, InputError, type Slide, type SlideElement } from '@xsb/core';
import { getDocumentProxy } from 'unpdf';
import { countDeckVisibleWords } from './count-visible-words';

type Matrix = [number, number, number, number, number, number];

interface PositionedText {
  str: string;
  x: number;
  /** Baseline, from the page's top edge. */
  baseline: number;
  width: number;
  fontSize: number;
  hasEOL: boolean;
}

interface TextLine {
  items: PositionedText[];
}

function multiply(m1: Matrix, m2: Matrix): Matrix {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function groupLines(items: PositionedText[]): TextLine[] {
  const lines: TextLine[] = [];
  let current: TextLine | undefined;
  let previous: PositionedText | undefined;
  for (const item of items) {
    const startsNew =
      !current ||
      !previous ||
      previous.hasEOL ||
      Math.abs(item.baseline - previous.baseline) > Math.max(previous.fontSize, item.fontSize) * 0.5 ||
      item.x < previous.x - 1;
    if (startsNew) {
      current = { items: [] };
      lines.push(current);
    }
    current?.items.push(item);
    previous = item;
  }
  return lines.filter((line) => line.items.some((item) => item.str.trim() !== ''));
}

function lineText(line: TextLine): string {
  let text = '';
  let previous: PositionedText | undefined;
  for (const item of line.items) {
    if (previous && text !== '' && !/\s$/.test(text) && !/^\s/.test(item.str)) {
      const gap = item.x - (previous.x + previous.width);
      if (gap > previous.fontSize * 0.15) text += ' ';
    }
    text += item.str;
    previous = item;
  }
  return text.replace(/\s+/g, ' ').trim();
}

const BULLET_START =
  /^([\u2022\u2023\u25aa\u25ab\u25cf\u25e6\u2043\u2219\u25a0\u25a1\u27a2\u2013\u2014*-]\s|\d{1,2}[.)]\s)/u;

function lineElement(line: TextLine): SlideElement {
  const visible = line.items.filter((item) => item.str.trim() !== '');
  const left = Math.min(...visible.map((item) => item.x));
  const right = Math.max(...visible.map((item) => item.x + item.width));
  const top = Math.min(...visible.map((item) => item.baseline - item.fontSize));
  const bottom = Math.max(...visible.map((item) => item.baseline + item.fontSize * 0.25));
  const text = lineText(line);
  return {
    kind: 'text',
    bbox: { x: round2(left), y: round2(top), width: round2(right - left), height: round2(bottom - top) },
    text,
    font_sizes: visible.map((item) => round2(item.fontSize)),
    placeholder: false,
    bullet_count: BULLET_START.test(text) ? 1 : 0,
  };
}

const sizeOf = (element: SlideElement) => Math.max(0, ...element.font_sizes);

/**
 * A PDF page has no title field: take the largest-type line in the top half of the page, joined with
 * the lines right after it in the same size (a title wrapped onto two lines).
 */
function pageTitle(elements: SlideElement[], pageHeight: number): string {
  const upper = elements.filter((element) => (element.bbox?.y ?? 0) < pageHeight / 2);
  const candidates = upper.length > 0 ? upper : elements;
  if (candidates.length === 0) return '';
  const largest = Math.max(...candidates.map(sizeOf));
  const start = elements.indexOf(candidates.find((element) => sizeOf(element) === largest) as SlideElement);
  const parts: string[] = [];
  for (let index = start; index < elements.length && index < start + 3; index++) {
    const element = elements[index] as SlideElement;
    if (Math.abs(sizeOf(element) - largest) > 0.5) break;
    parts.push(element.text);
  }
  return parts.join(' ').trim();
}

function describePages(pages: number[]): string {
  return pages.length > 10 ? `${pages.slice(0, 10).join(', ')} …` : pages.join(', ');
}

export interface ReadPdfOptions {
  maxPages: number;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

async function openPdf(bytes: Uint8Array, deckPath: string): Promise<PdfDocument> {
  try {
    return await getDocumentProxy(bytes, { verbosity: 0, stopAtErrors: false });
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'PasswordException') {
      throw new InputError('the PDF is password-protected (encrypted); remove the password to read it', {
        file: deckPath,
        code: 'encrypted',
      });
    }
    throw new InputError(`not a readable PDF: ${(error as Error).message}`, {
      file: deckPath,
      code: 'corrupt_pdf',
    });
  }
}

async function readPdfPage(
  document: PdfDocument,
  pageNumber: number,
): Promise<{ slide: Slide; width: number; height: number }> {
  const page = await document.getPage(pageNumber);
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const items: PositionedText[] = [];
  for (const raw of content.items) {
    if (!('str' in raw)) continue;
    const matrix = multiply(viewport.transform as Matrix, raw.transform as Matrix);
    const fontSize = Math.hypot(matrix[2], matrix[3]) || Math.hypot(matrix[0], matrix[1]);
    items.push({
      str: raw.str,
      x: matrix[4],
      baseline: matrix[5],
      width: raw.width,
      fontSize,
      hasEOL: raw.hasEOL,
    });
  }
  page.cleanup();
  const elements = groupLines(items).map(lineElement);
  const slide: Slide = {
    index: pageNumber,
    title: pageTitle(elements, viewport.height),
    visible_text: elements.map((element) => element.text).join('\n'),
    notes: '',
    elements,
  };
  return { slide, width: viewport.width, height: viewport.height };
}

function textlessWarning(textless: number[], pageCount: number): string {
  return textless.length === pageCount
    ? 'no page has a text layer (image-only PDF): visible text is empty; judge it in image mode'
    : `page${textless.length === 1 ? '' : 's'} ${describePages(textless)} ha${textless.length === 1 ? 's' : 've'} no text layer`;
}

/** Positions go through each page's viewport transform, so rotation and crop boxes are honoured. */
export async function readPdfDeck(
  bytes: Uint8Array,
  deckPath: string,
  options: ReadPdfOptions,
): Promise<Deck> {
  const document = await openPdf(bytes, deckPath);
  try {
    const pageCount = document.numPages;
    if (pageCount > options.maxPages) {
      throw new InputError(`the PDF has ${pageCount} pages, more than the limit of ${options.maxPages}`, {
        file: deckPath,
        code: 'too_many_pages',
      });
    }
    const warnings: string[] = [];
    const slides: Slide[] = [];
    const textless: number[] = [];
    let width: number | null = null;
    let height: number | null = null;
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
      const page = await readPdfPage(document, pageNumber);
      if (pageNumber === 1) {
        width = round2(page.width);
        height = round2(page.height);
      }
      if (page.slide.elements.length === 0) textless.push(pageNumber);
      slides.push(page.slide);
    }
    if (textless.length > 0) warnings.push(textlessWarning(textless, pageCount));
    if (pageCount === 0) warnings.push('the PDF has no pages');
    return {
      deck_path: deckPath,
      format: 'pdf',
      parser: 'pdf',
      slide_count: slides.length,
      visible_word_count: countDeckVisibleWords(slides),
      slide_width: width,
      slide_height: height,
      slides,
      warnings,
    };
  } finally {
    await document.destroy();
  }
}
