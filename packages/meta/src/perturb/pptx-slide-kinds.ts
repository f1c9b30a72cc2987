import { excerpt, type KindOutcome, type PptxVariant } from './kind-outcome';
import {
  duplicateSlide,
  duplicationBlocker,
  linkedFromElsewhere,
  removeSlides,
  writeSlideList,
} from './slide-list';
import { derangement, sampleIndices, unitsFor } from './text-patterns';

function slideView(variant: PptxVariant, position: number) {
  const slide = variant.deck.slides[position]!;
  return { visible_text: slide.visible_text, notes: slide.notes };
}

/** `drop_slides`: removes a share of the content slides (never one another part links to). */
export function dropSlides(variant: PptxVariant): KindOutcome {
  const eligible = variant.content.filter(
    (position) => !linkedFromElsewhere(variant.editor, variant.list, variant.list.entries[position]!.part),
  );
  if (eligible.length === 0)
    return { changes: [], eligible: 0, changed: 0, skipped: 'the deck has no content slide to drop' };
  const chosen = sampleIndices(
    eligible.length,
    unitsFor(variant.severity, eligible.length),
    variant.random,
  ).map((index) => eligible[index]!);
  const dropped = new Set(chosen);
  removeSlides(variant.editor, variant.list, chosen);
  return {
    eligible: eligible.length,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide' as const,
      old: excerpt(variant.deck.slides[position]!.visible_text),
      new: '',
      detail: 'slide removed',
    })),
    expectedSlides: variant.deck.slides
      .map((_, position) => position)
      .filter((position) => !dropped.has(position))
      .map((position) => slideView(variant, position)),
  };
}

/** `shuffle_slides`: moves a share (at least two) of the content slides so that every one of them changes place. */
export function shuffleSlides(variant: PptxVariant): KindOutcome {
  const eligible = variant.content;
  if (eligible.length < 2) {
    return {
      changes: [],
      eligible: eligible.length,
      changed: 0,
      skipped: 'the deck has fewer than two content slides to reorder',
    };
  }
  const chosen = sampleIndices(
    eligible.length,
    unitsFor(variant.severity, eligible.length, 2),
    variant.random,
  ).map((index) => eligible[index]!);
  const cycle = derangement(chosen.length, variant.random);
  const order = variant.deck.slides.map((_, position) => position);
  chosen.forEach((position, index) => {
    order[position] = chosen[cycle[index]!]!;
  });
  // Rewrites the id list only: no part is added or removed, so every other byte stays.
  writeSlideList(
    variant.editor,
    variant.list,
    order.map((position) => variant.list.entries[position]!),
  );
  const changes = order
    .map((from, to) => ({ from, to }))
    .filter(({ from, to }) => from !== to)
    .map(({ from, to }) => ({
      slide: from + 1,
      field: 'position' as const,
      old: String(from + 1),
      new: String(to + 1),
      detail: excerpt(variant.deck.slides[from]!.title || variant.deck.slides[from]!.visible_text),
    }))
    .sort((a, b) => a.slide - b.slide);
  return {
    eligible: eligible.length,
    changed: chosen.length,
    changes,
    expectedSlides: order.map((position) => slideView(variant, position)),
  };
}

/** `duplicate_slides`: repeats a share of the content slides, each copy right after its original. */
export function duplicateSlides(variant: PptxVariant): KindOutcome {
  const blocked: string[] = [];
  const eligible = variant.content.filter((position) => {
    const reason = duplicationBlocker(variant.editor, variant.list.entries[position]!.part);
    if (reason) blocked.push(`slide ${position + 1}: ${reason}`);
    return !reason;
  });
  if (eligible.length === 0) {
    return {
      changes: [],
      eligible: 0,
      changed: 0,
      skipped:
        blocked.length > 0
          ? `no content slide can be copied safely (${blocked.join('; ')})`
          : 'the deck has no content slide to duplicate',
    };
  }
  const chosen = sampleIndices(
    eligible.length,
    unitsFor(variant.severity, eligible.length),
    variant.random,
  ).map((index) => eligible[index]!);
  for (const position of [...chosen].sort((a, b) => b - a))
    duplicateSlide(variant.editor, variant.list, position);
  const copies = new Set(chosen);
  const expected = variant.deck.slides.flatMap((_, position) =>
    copies.has(position)
      ? [slideView(variant, position), slideView(variant, position)]
      : [slideView(variant, position)],
  );
  return {
    eligible: eligible.length,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide' as const,
      old: '',
      new: excerpt(variant.deck.slides[position]!.visible_text),
      detail: `copy of slide ${position + 1} inserted after it`,
    })),
    expectedSlides: expected,
  };
}
