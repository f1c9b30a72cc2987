import type { Deck } from '@xsb/core';
import { countDeckVisibleWords } from './count-visible-words';

/** As PresentBench truncates decks; on the parsed deck, so PPTX and PDF behave alike. */
export function truncateDeck(deck: Deck, maxSlides: number): Deck {
  if (!Number.isInteger(maxSlides) || maxSlides < 0) {
    throw new RangeError(`maxSlides must be a whole number >= 0, got ${maxSlides}`);
  }
  if (deck.slides.length <= maxSlides) return deck;
  const slides = deck.slides.slice(0, maxSlides);
  return {
    ...deck,
    slides,
    slide_count: slides.length,
    visible_word_count: countDeckVisibleWords(slides),
    warnings: [...deck.warnings, `truncated from ${deck.slides.length} to ${maxSlides} slides`],
  };
}
