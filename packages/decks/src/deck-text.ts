import type { Deck } from '@xsb/core';

/**
 * The deck's visible text as evaluation reads it: one `[Slide N]` header per slide (so judges can
 * cite slides) followed by that slide's visible text. Speaker notes are never included.
 */
export function formatDeckText(deck: Pick<Deck, 'slides'>): string {
  return deck.slides
    .map((slide) =>
      slide.visible_text ? `[Slide ${slide.index}]\n${slide.visible_text}` : `[Slide ${slide.index}]`,
    )
    .join('\n\n')
    .concat(deck.slides.length > 0 ? '\n' : '');
}
