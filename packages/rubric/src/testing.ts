import type { Deck, Slide, SlideElement } from '@xsb/core';

/** A text element for hand-built test decks (points, top-left origin). */
export function textElement(
  text: string,
  box: { x: number; y: number; width: number; height: number },
  extra: Partial<SlideElement> = {},
): SlideElement {
  return { kind: 'text', bbox: box, text, font_sizes: [18], placeholder: false, ...extra };
}

/** A slide whose visible text is the join of its elements' text. */
export function slideOf(index: number, title: string, elements: SlideElement[]): Slide {
  return {
    index,
    title,
    visible_text: elements
      .map((element) => element.text)
      .filter((text) => text.length > 0)
      .join('\n'),
    notes: '',
    elements,
  };
}

/** A 16:9 deck (720 × 405 pt) from slides, with the stats fields filled in. */
export function deckOf(slides: Slide[], path = 'test-deck.pptx'): Deck {
  return {
    deck_path: path,
    format: 'pptx',
    parser: 'test',
    slide_count: slides.length,
    visible_word_count: slides.reduce(
      (sum, slide) => sum + (slide.visible_text.match(/\S+/g)?.length ?? 0),
      0,
    ),
    slide_width: 720,
    slide_height: 405,
    slides,
    warnings: [],
  };
}

export {
  buildCleanDeck,
  buildDefectDeck,
  buildTextBoxDeck,
  NINE_PLAIN_LINES,
  WRAPPED_PARAGRAPH,
  writeLayoutFixtureDecks,
  writeLectureDeck,
  writeTextBoxDeck,
} from './write-layout-fixture-decks';
