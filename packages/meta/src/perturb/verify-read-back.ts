import type { Deck, SlideElement } from '@xsb/core';
import type { KindOutcome } from './kind-outcome';

/** Line-wise normalisation: the reader trims element texts and drops trailing empty lines. */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

function flatten(elements: readonly SlideElement[]): SlideElement[] {
  return elements.flatMap((element) => [element, ...flatten(element.children ?? [])]);
}

/** The first way the written deck, read back, differs from the intended change, or undefined. */
export function verifyReadBack(outcome: KindOutcome, deck: Deck): string | undefined {
  const expected = outcome.expectedSlides;
  if (!expected) return 'nothing to verify against';
  if (deck.slides.length !== expected.length)
    return `read back ${deck.slides.length} slides, expected ${expected.length}`;
  for (const [position, slide] of deck.slides.entries()) {
    const want = expected[position]!;
    if (normalise(slide.visible_text) !== normalise(want.visible_text)) {
      return `slide ${position + 1} reads back as ${JSON.stringify(slide.visible_text.slice(0, 200))}, expected ${JSON.stringify(want.visible_text.slice(0, 200))}`;
    }
    if (normalise(slide.notes) !== normalise(want.notes)) return `slide ${position + 1}: its notes changed`;
  }
  for (const check of outcome.fontChecks ?? []) {
    const sizes = flatten(deck.slides[check.position]!.elements).flatMap((element) => element.font_sizes);
    const small = sizes.filter((size) => size <= check.maxPt + 1e-9).length;
    if (small < check.count)
      return `slide ${check.position + 1}: ${small} runs at ≤ ${check.maxPt} pt, expected ${check.count}`;
  }
  for (const check of outcome.boxChecks ?? []) {
    const found = flatten(deck.slides[check.position]!.elements).some(({ bbox }) =>
      (['x', 'y', 'width', 'height'] as const).every(
        (side) => bbox && Math.abs(bbox[side] - check.bbox[side]) < 0.02,
      ),
    );
    if (!found)
      return `slide ${check.position + 1}: no element at the moved box ${JSON.stringify(check.bbox)}`;
  }
  return undefined;
}
