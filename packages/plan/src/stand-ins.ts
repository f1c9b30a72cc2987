import type { Deck, Probe } from '@xsb/core';

/**
 * What a plan assumes for artifacts that an earlier step of the same run makes from model answers
 * (a pipeline plan from nothing). Stated, round, and written into every row that rests on them.
 */
export const STAND_IN_ASSUMPTIONS = {
  /**
   * Final probes per source chunk: each of the k samples is asked for 15–30 probes, the samples
   * overlap, and filters, grounding and dedup keep about one sample's worth.
   */
  probesPerChunk: 20,
  /** Slides of a generated deck: the baseline's default `maxSlides` (8, title slide included). */
  slidesPerDeck: 8,
  /** Bullets per content slide: the outline prompt asks for 2–6 of at most 20 words. */
  bulletsPerSlide: 4,
  wordsPerBullet: 16,
} as const;

const WORDS = [
  'the',
  'pilot',
  'measured',
  'energy',
  'savings',
  'across',
  'sites',
  'with',
  'results',
  'showing',
  'clear',
  'gains',
  'for',
  'households',
  'and',
  'operators',
];

/** A seed from a label, so stand-ins of different cases and decks never share a prompt. */
function seedOf(label: string): number {
  let seed = 0;
  for (const char of label) seed = (seed * 31 + char.charCodeAt(0)) % 1_000_003;
  return seed;
}

function sentence(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i += 1) out.push(WORDS[(seed * 7 + i * 3) % WORDS.length]!);
  // A number in every bullet, as the outline prompt's "copy the numbers exactly" makes likely.
  return `${out.join(' ')} ${12 + (seed % 80)} percent.`;
}

/** A bank of `count` probes of typical field lengths (question ~14 words, answer ~10, one quote). */
export function standInProbes(caseId: string, count: number): Probe[] {
  const base = seedOf(caseId);
  return Array.from({ length: count }, (_, n) => {
    const i = base + n;
    return {
      probe_id: `pb_${String(n + 1).padStart(4, '0')}`,
      source_case_id: caseId,
      scene: 'stand-in',
      question: `${sentence(i, 12)}?`,
      answer: sentence(i + 1, 8),
      evidence: [{ locator: 'page 1', text: sentence(i + 2, 40) }],
      level: 1,
      modality: 'text',
      theme: 'result',
      metadata: {},
    };
  });
}

/** A deck of the assumed size: a title slide and content slides of numbered bullets. */
export function standInDeck(label: string): Deck {
  const { slidesPerDeck, bulletsPerSlide, wordsPerBullet } = STAND_IN_ASSUMPTIONS;
  const base = seedOf(label);
  const slides = Array.from({ length: slidesPerDeck }, (_, i) => {
    const title = i === 0 ? `${label}` : `Finding ${i}`;
    const bullets =
      i === 0
        ? []
        : Array.from({ length: bulletsPerSlide }, (_, b) => sentence(base + i * 10 + b, wordsPerBullet - 2));
    const visible = [title, ...bullets].join('\n');
    return { index: i + 1, title, visible_text: visible, notes: '', elements: [] };
  });
  const words = slides.reduce((sum, slide) => sum + slide.visible_text.split(/\s+/).length, 0);
  return {
    deck_path: `${label}.pptx`,
    format: 'pptx',
    parser: 'stand-in',
    slide_count: slides.length,
    visible_word_count: words,
    slide_width: 960,
    slide_height: 540,
    slides,
    warnings: [],
  };
}
