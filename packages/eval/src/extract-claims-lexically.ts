import type { Deck } from '@xsb/core';
import { contentTokens, extractNumbers, splitSentences } from './lexical-tokens';
import { slideVisibleText } from './slide-visible-text';

export interface DeckClaim {
  claim_id: string;
  slide_index: number;
  text: string;
}

/** A sentence is checkable when it has a number, or at least this many content words. */
export const LEXICAL_CLAIM_MIN_CONTENT_WORDS = 4;

/**
 * The offline claim extractor `lexical`: every visible sentence (bullet line or sentence within a
 * line) that carries checkable content — a number, or at least four content words — is one claim,
 * in slide order, capped at `maxClaims`. Slide titles count like other lines, and a sentence
 * repeated in the deck is kept once (its first slide).
 */
export function extractClaimsLexically(deck: Deck, maxClaims: number): DeckClaim[] {
  const claims: DeckClaim[] = [];
  const seen = new Set<string>();
  for (const slide of deck.slides) {
    let n = 0;
    for (const sentence of splitSentences(slideVisibleText(slide))) {
      if (claims.length >= maxClaims) return claims;
      const key = sentence.toLowerCase();
      if (seen.has(key)) continue;
      const checkable =
        extractNumbers(sentence).length > 0 ||
        contentTokens(sentence).length >= LEXICAL_CLAIM_MIN_CONTENT_WORDS;
      if (!checkable) continue;
      seen.add(key);
      n += 1;
      claims.push({ claim_id: `s${slide.index}_c${n}`, slide_index: slide.index, text: sentence });
    }
  }
  return claims;
}
