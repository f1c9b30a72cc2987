import type { BoundingBox, Deck } from '@xsb/core';
import { countVisibleWords } from '@xsb/decks';
import type { PerturbationChange } from '../schemas/meta-perturbation';
import type { PptxEditor } from './pptx-editor';
import type { SlideList } from './slide-list';
import type { SlideTexts } from './slide-texts';

/** What one kind did to one deck, and what the written deck must read back as. */
export interface KindOutcome {
  changes: PerturbationChange[];
  eligible: number;
  changed: number;
  /** Title-free expectation of every slide of the output, in show order. */
  expectedSlides?: Array<{ visible_text: string; notes: string }>;
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
export function unchangedSlides(deck: Deck): Array<{ visible_text: string; notes: string }> {
  return deck.slides.map((slide) => ({ visible_text: slide.visible_text, notes: slide.notes }));
}
