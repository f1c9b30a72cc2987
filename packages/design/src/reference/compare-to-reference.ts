import { compareCodePoints } from '@xsb/core';
import { contentTokens } from '@xsb/eval';
import { kendallTauB } from '@xsb/stats';
import { munkres } from 'munkres';
import type { ReferenceRecord } from '../schemas/reference-record';
import { rougeL, slideWords } from './rouge-l';

/** How many of the reference's most frequent content terms are its key terms. */
export const KEY_TERM_COUNT = 20;

export type ReferenceComparison = Pick<
  ReferenceRecord,
  | 'slide_count'
  | 'reference_slide_count'
  | 'slide_count_ratio'
  | 'matches'
  | 'rouge_l'
  | 'order_tau'
  | 'key_terms'
  | 'key_term_recall'
>;

/**
 * The reference's key terms: stemmed content words (no stopwords, no numbers) that occur at least twice,
 * ranked by how many slides hold them, then by count, then alphabetically; the first `KEY_TERM_COUNT`.
 */
export function keyTerms(referenceSlides: readonly string[]): string[] {
  const stats = new Map<string, { slides: number; count: number }>();
  for (const text of referenceSlides) {
    const tokens = contentTokens(text);
    for (const token of tokens) {
      const entry = stats.get(token) ?? { slides: 0, count: 0 };
      entry.count += 1;
      stats.set(token, entry);
    }
    for (const token of new Set(tokens)) stats.get(token)!.slides += 1;
  }
  return [...stats]
    .filter(([, entry]) => entry.count >= 2)
    .sort(([a, x], [b, y]) => y.slides - x.slides || y.count - x.count || compareCodePoints(a, b))
    .slice(0, KEY_TERM_COUNT)
    .map(([term]) => term);
}

/**
 * A deck against its reference, slide texts in order: Hungarian assignment of slides on ROUGE-L (DeckBench's
 * matching idea), the matched pairs' ROUGE-L, Kendall's tau of their order, slide-count ratio and key-term recall.
 */
export function compareToReference(
  slides: readonly string[],
  referenceSlides: readonly string[],
): ReferenceComparison {
  const words = slides.map(slideWords);
  const referenceWords = referenceSlides.map(slideWords);
  const similarity = words.map((deckSlide) =>
    referenceWords.map((referenceSlide) => rougeL(deckSlide, referenceSlide)),
  );
  const pairs =
    words.length > 0 && referenceWords.length > 0
      ? munkres(similarity.map((row) => row.map((s) => 1 - s)))
      : [];
  const matches = pairs
    .map(([slide, reference]) => ({
      slide: slide + 1,
      reference_slide: reference + 1,
      rouge_l: similarity[slide]![reference]!,
    }))
    .filter((match) => match.rouge_l > 0)
    .sort((a, b) => a.slide - b.slide);
  const larger = Math.max(slides.length, referenceSlides.length);
  const terms = keyTerms(referenceSlides);
  const deckTerms = new Set(slides.flatMap((text) => contentTokens(text)));
  return {
    slide_count: slides.length,
    reference_slide_count: referenceSlides.length,
    slide_count_ratio: referenceSlides.length > 0 ? slides.length / referenceSlides.length : null,
    matches,
    rouge_l: larger > 0 ? Math.min(1, matches.reduce((sum, match) => sum + match.rouge_l, 0) / larger) : 0,
    order_tau:
      matches.length >= 2
        ? kendallTauB(
            matches.map((match) => match.slide),
            matches.map((match) => match.reference_slide),
          )
        : null,
    key_terms: terms,
    key_term_recall:
      terms.length > 0 ? terms.filter((term) => deckTerms.has(term)).length / terms.length : null,
  };
}
