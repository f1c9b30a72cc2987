import type { BoundingBox, Deck, Slide, SlideElement } from '@xsb/core';
import { mainScript } from './main-script';

/**
 * The layout rules a deck a presenter could use keeps, checked directly on a parsed deck so tests
 * need not depend on `@xsb/rubric` (decks sits below it): a title on every slide (its title
 * placeholder, else the topmost text of the largest type), at most six readable items (any non-empty
 * body paragraph outside the title, bullet markup or not), no slide holding only its title, type of
 * at least 12 pt, no text box overlapping another text box or a picture by more than 10 % of the
 * smaller, nothing off the slide (2 pt tolerance), and every slide of ten letters or more in the
 * deck's main script. Returns one message per broken rule, `slide N: …`; empty when the deck passes.
 */
export function presentableDeckViolations(deck: Deck): string[] {
  const problems: string[] = [];
  const deckScript = mainScript(deck.slides.map((slide) => slide.visible_text).join('\n'));
  for (const slide of deck.slides) {
    const at = (message: string) => problems.push(`slide ${slide.index}: ${message}`);
    const elements = flatten(slide.elements);
    const texts = elements.filter((element) => element.kind === 'text' && element.text.trim() !== '');
    const titleElement = findTitle(slide, texts);
    if (!titleElement) at('no title');
    const items = texts
      .filter((element) => element !== titleElement)
      .flatMap((element) => element.text.split('\n'))
      .filter((line) => line.trim() !== '').length;
    const visuals = elements.filter((element) => ['table', 'chart', 'picture'].includes(element.kind));
    if (items > 6) at(`${items} content items (at most 6)`);
    if (items === 0 && visuals.length === 0) at('holds only its title');
    for (const element of elements) {
      const small = element.font_sizes.filter((size) => size < 12);
      if (element.text.trim() !== '' && small.length > 0)
        at(`${Math.min(...small)} pt text "${element.text.slice(0, 30)}"`);
    }
    const pictures = elements.filter((element) => element.kind === 'picture');
    texts.forEach((text, index) => {
      for (const other of [...texts.slice(index + 1), ...pictures]) {
        if (text.bbox && other.bbox && overlapShare(text.bbox, other.bbox) > 0.1) {
          at(`"${text.text.slice(0, 30)}" overlaps "${other.text.slice(0, 30)}"`);
        }
      }
    });
    for (const element of elements) {
      const box = element.bbox;
      if (!box || !deck.slide_width || !deck.slide_height) continue;
      if (
        box.x < -2 ||
        box.y < -2 ||
        box.x + box.width > deck.slide_width + 2 ||
        box.y + box.height > deck.slide_height + 2
      ) {
        at(`a ${element.kind} leaves the slide`);
      }
    }
    const letters = slide.visible_text.match(/\p{L}/gu)?.length ?? 0;
    const script = mainScript(slide.visible_text);
    if (letters >= 10 && script !== deckScript) at(`written in ${script} script, the deck in ${deckScript}`);
  }
  return problems;
}

function flatten(elements: SlideElement[]): SlideElement[] {
  return elements.flatMap((element) => [element, ...flatten(element.children ?? [])]);
}

function findTitle(slide: Slide, texts: SlideElement[]): SlideElement | undefined {
  const title = slide.title.replace(/\s+/g, ' ').trim();
  if (title !== '') {
    const placeholder = texts.find((element) => element.text.replace(/\s+/g, ' ').trim() === title);
    if (placeholder) return placeholder;
  }
  const largest = Math.max(0, ...texts.map((element) => Math.max(0, ...element.font_sizes)));
  return texts
    .filter((element) => Math.max(0, ...element.font_sizes) === largest && largest > 0)
    .sort((a, b) => (a.bbox?.y ?? 0) - (b.bbox?.y ?? 0))[0];
}

function overlapShare(a: BoundingBox, b: BoundingBox): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const smaller = Math.min(a.width * a.height, b.width * b.height);
  return width > 0 && height > 0 && smaller > 0 ? (width * height) / smaller : 0;
}
