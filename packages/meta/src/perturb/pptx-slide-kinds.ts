import {
  chooseUnits,
  droppedOutcome,
  duplicatedOutcome,
  type KindOutcome,
  type PptxVariant,
  shuffledOutcome,
  skippedOutcome,
  unchangedSlides,
} from './kind-outcome';
import {
  duplicateSlide,
  duplicationBlocker,
  linkedFromElsewhere,
  removeSlides,
  writeSlideList,
} from './slide-list';

/** `drop_slides`: removes a share of the content slides (never one another part links to). */
export function dropSlides(variant: PptxVariant): KindOutcome {
  const eligible = variant.content.filter(
    (position) => !linkedFromElsewhere(variant.editor, variant.list, variant.list.entries[position]!.part),
  );
  if (eligible.length === 0) return skippedOutcome('the deck has no content slide to drop');
  const chosen = chooseUnits(eligible, variant);
  removeSlides(variant.editor, variant.list, chosen);
  return droppedOutcome(variant.deck, eligible.length, chosen, unchangedSlides(variant.deck), 'slide');
}

/** `shuffle_slides`: moves a share (at least two) of the content slides so that every one of them changes place. */
export function shuffleSlides(variant: PptxVariant): KindOutcome {
  const eligible = variant.content;
  if (eligible.length < 2)
    return skippedOutcome('the deck has fewer than two content slides to reorder', eligible.length);
  const chosen = chooseUnits(eligible, variant, 2);
  const views = unchangedSlides(variant.deck);
  const { order, outcome } = shuffledOutcome(variant.deck, eligible.length, chosen, views, variant.random);
  // Rewrites the id list only: no part is added or removed, so every other byte stays.
  writeSlideList(
    variant.editor,
    variant.list,
    order.map((position) => variant.list.entries[position]!),
  );
  return outcome;
}

/** `duplicate_slides`: repeats a share of the content slides, each copy right after its original. */
export function duplicateSlides(variant: PptxVariant): KindOutcome {
  const blocked: string[] = [];
  const eligible = variant.content.filter((position) => {
    const reason = duplicationBlocker(variant.editor, variant.list.entries[position]!.part);
    if (reason) blocked.push(`slide ${position + 1}: ${reason}`);
    return !reason;
  });
  if (eligible.length === 0)
    return skippedOutcome(
      blocked.length > 0
        ? `no content slide can be copied safely (${blocked.join('; ')})`
        : 'the deck has no content slide to duplicate',
    );
  const chosen = chooseUnits(eligible, variant);
  for (const position of [...chosen].sort((a, b) => b - a))
    duplicateSlide(variant.editor, variant.list, position);
  return duplicatedOutcome(variant.deck, eligible.length, chosen, unchangedSlides(variant.deck), 'slide');
}
