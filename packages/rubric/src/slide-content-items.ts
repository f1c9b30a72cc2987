import type { Deck, Slide, SlideElement } from '@xsb/core';

export interface SlideContentCount {
  /** Readable content items: non-empty body paragraphs, bullet markup or not. */
  items: number;
  /** Of those, the ones carrying bullet markup (PPTX paragraph bullets; PDF lines opening with a glyph). */
  bulleted: number;
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** A bare slide number ("7", "7 / 20") is chrome, not content. */
const SLIDE_NUMBER = /^\s*\d{1,4}(\s*\/\s*\d{1,4})?\s*$/;

/** A line opening with a bullet glyph or a list number. */
const LIST_MARKER =
  /^\s*([\u2022\u2023\u25aa\u25ab\u25cf\u25e6\u2043\u2219\u25a0\u25a1\u27a2\u2013\u2014*·•○◦▪‣⁃∙-]\s|\d{1,2}[.)]\s)/u;

/** Elements whose text is body text: text boxes and diagram text, inside groups too (tables and charts hold data, not paragraphs). */
function bodyElements(elements: SlideElement[]): SlideElement[] {
  return elements.flatMap((element) => {
    if (element.kind === 'group') return bodyElements(element.children ?? []);
    if (element.kind === 'text' || element.kind === 'other') return element.text.trim() ? [element] : [];
    return [];
  });
}

/**
 * The run of elements that spells the slide's title (one PPTX title element, or up to three PDF
 * lines joined by spaces), as positions in `elements`.
 */
function titlePositions(elements: SlideElement[], title: string, maxRun: number): Set<number> {
  const wanted = normalise(title);
  if (wanted === '') return new Set();
  for (let start = 0; start < elements.length; start += 1) {
    let joined = '';
    for (let end = start; end < Math.min(elements.length, start + maxRun); end += 1) {
      joined = normalise(`${joined} ${(elements[end] as SlideElement).text}`);
      if (joined === wanted) return new Set(Array.from({ length: end - start + 1 }, (_, k) => start + k));
      if (!wanted.startsWith(joined)) break;
    }
  }
  return new Set();
}

const largest = (element: SlideElement): number => Math.max(0, ...element.font_sizes);
const top = (element: SlideElement): number => element.bbox?.y ?? 0;

/**
 * Whether PDF line `line` continues the paragraph of `previous` (a wrapped line) rather than starting
 * a new item: same type size (±0.5 pt), no list marker, at most 1.6 × the size below it, and either
 * it opens with a lower-case letter or `previous` ends with a hyphen. A paragraph wrapped before a
 * capitalised word, or in a script without case (Chinese), counts once per line.
 */
function continuesParagraph(previous: SlideElement, line: SlideElement): boolean {
  const size = largest(line);
  return (
    Math.abs(largest(previous) - size) <= 0.5 &&
    !LIST_MARKER.test(line.text) &&
    top(line) - top(previous) <= 1.6 * Math.max(size, 1) &&
    (/^\s*\p{Ll}/u.test(line.text) || /-\s*$/.test(previous.text))
  );
}

/**
 * Readable content items on one slide, the measure of the `bullets_per_slide` check. PPTX: every
 * non-empty paragraph (or soft line break) of every text element except the title, bullet markup or
 * not, so a plain text box of nine lines counts nine. PDF: every text line except the title lines,
 * wrapped lines joined to their paragraph (see `continuesParagraph`). Bare slide numbers are not
 * counted. `bulleted` counts the items that carry bullet markup.
 */
export function slideContentItems(slide: Slide, format: Deck['format']): SlideContentCount {
  const elements = bodyElements(slide.elements);
  const title = titlePositions(elements, slide.title, format === 'pdf' ? 3 : 1);
  const body = elements.filter((_, index) => !title.has(index));
  if (format === 'pdf') {
    let items = 0;
    let bulleted = 0;
    body.forEach((line, index) => {
      if (SLIDE_NUMBER.test(line.text)) return;
      const previous = body[index - 1];
      if (!previous || !continuesParagraph(previous, line)) items += 1;
      if ((line.bullet_count ?? 0) > 0) bulleted += 1;
    });
    return { items, bulleted };
  }
  let items = 0;
  let bulleted = 0;
  for (const element of body) {
    if (SLIDE_NUMBER.test(element.text)) continue;
    items += element.text.split('\n').filter((line) => line.trim() !== '').length;
    bulleted += element.bullet_count ?? 0;
  }
  return { items, bulleted };
}
