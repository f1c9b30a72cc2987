import type { BoundingBox, Deck } from '@xsb/core';
import { countVisibleWords } from '@xsb/decks';
import type { PerturbationChange } from '../schemas/meta-perturbation';
import type { PptxEditor } from './pptx-editor';
import type { SlideList } from './slide-list';
import type { SlideTexts } from './slide-texts';
import { derangement, sampleIndices, unitsFor } from './text-patterns';

type SlideView = { visible_text: string; notes: string };

/** What one kind did to one deck, and what the written deck must read back as. */
export interface KindOutcome {
  changes: PerturbationChange[];
  eligible: number;
  changed: number;
  /** Title-free expectation of every slide of the output, in show order. */
  expectedSlides?: SlideView[];
  /** Output slide (0-based) that must hold at least `count` runs of at most `maxPt` points. */
  fontChecks?: Array<{ position: number; maxPt: number; count: number }>;
  /** Output slide (0-based) that must hold an element with this box (points). */
  boxChecks?: Array<{ position: number; bbox: BoundingBox }>;
  /** Which geometry checks `overflow_text` broke. */
  overflowChecks?: Array<'off_slide' | 'text_overlap'>;
  skipped?: string;
}

export interface PptxVariant {
  editor: PptxEditor;
  list: SlideList;
  deck: Deck;
  texts: SlideTexts;
  /** 0-based positions of content slides: not the first, with body text beyond the title. */
  content: number[];
  slideSize: { cx: number; cy: number } | null;
  severity: number;
  random: () => number;
}

/** Content slides: every slide but the first (title) one whose visible words go beyond its title. */
export function contentSlidePositions(deck: Deck): number[] {
  const out: number[] = [];
  deck.slides.forEach((slide, position) => {
    if (position === 0) return;
    if (countVisibleWords(slide.visible_text) > countVisibleWords(slide.title)) out.push(position);
  });
  return out;
}

/** A short quote of a text for `changes` (first line, at most 80 characters). */
export function excerpt(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** The slides as they are (text and notes), for kinds that move no text. */
export function unchangedSlides(deck: Deck): SlideView[] {
  return deck.slides.map((slide) => ({ visible_text: slide.visible_text, notes: slide.notes }));
}

export function skippedOutcome(reason: string, eligible = 0): KindOutcome {
  return { changes: [], eligible, changed: 0, skipped: reason };
}

/** The share of `units` a severity changes, drawn with the variant's seeded RNG, in unit order. */
export function chooseUnits<T>(
  units: readonly T[],
  { severity, random }: { severity: number; random: () => number },
  minimum?: number,
): T[] {
  return sampleIndices(units.length, unitsFor(severity, units.length, minimum), random).map(
    (index) => units[index]!,
  );
}

export function droppedOutcome(
  deck: Deck,
  eligible: number,
  chosen: readonly number[],
  views: readonly SlideView[],
  unit: 'slide' | 'page',
): KindOutcome {
  const dropped = new Set(chosen);
  return {
    eligible,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide',
      old: excerpt(deck.slides[position]!.visible_text),
      new: '',
      detail: `${unit} removed`,
    })),
    expectedSlides: views.filter((_, position) => !dropped.has(position)),
  };
}

/** `shuffle_slides`: the new show order (a random cycle through the chosen slides) and its outcome. */
export function shuffledOutcome(
  deck: Deck,
  eligible: number,
  chosen: readonly number[],
  views: readonly SlideView[],
  random: () => number,
): { order: number[]; outcome: KindOutcome } {
  const cycle = derangement(chosen.length, random);
  const order = deck.slides.map((_, position) => position);
  chosen.forEach((position, index) => {
    order[position] = chosen[cycle[index]!]!;
  });
  const changes = order
    .map((from, to) => ({ from, to }))
    .filter(({ from, to }) => from !== to)
    .map(({ from, to }) => ({
      slide: from + 1,
      field: 'position' as const,
      old: String(from + 1),
      new: String(to + 1),
      detail: excerpt(deck.slides[from]!.title || deck.slides[from]!.visible_text),
    }))
    .sort((a, b) => a.slide - b.slide);
  const expectedSlides = order.map((position) => views[position]!);
  return { order, outcome: { eligible, changed: chosen.length, changes, expectedSlides } };
}

export function duplicatedOutcome(
  deck: Deck,
  eligible: number,
  chosen: readonly number[],
  views: readonly SlideView[],
  unit: 'slide' | 'page',
): KindOutcome {
  const copies = new Set(chosen);
  return {
    eligible,
    changed: chosen.length,
    changes: chosen.map((position) => ({
      slide: position + 1,
      field: 'slide',
      old: '',
      new: excerpt(deck.slides[position]!.visible_text),
      detail: `copy of ${unit} ${position + 1} inserted after it`,
    })),
    expectedSlides: views.flatMap((view, position) => (copies.has(position) ? [view, view] : [view])),
  };
}
