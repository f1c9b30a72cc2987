/** Scripts written without spaces between words: every character counts as one word. */
const CHARACTER_WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;
/** Separators between words besides whitespace: slashes, dashes and bullet marks glue no words. */
const SEPARATORS = /[\s/|\u2013\u2014\u2022\u00b7\u25aa\u25cf]+/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Visible words of a text, the rule behind `visible_word_count`:
 * - each Han, Hiragana or Katakana character is one word (Chinese and Japanese use no spaces);
 * - the rest is split on whitespace, slashes, en/em dashes and bullet marks, and every piece holding
 *   at least one letter or digit is one word (so `state-of-the-art`, `3.5` and `don't` are one word each,
 *   and a lone `-` or `•` is none). Hangul is spaced like Latin, so Korean words count per space.
 */
export function countVisibleWords(text: string): number {
  let count = 0;
  const rest = text.replace(CHARACTER_WORD, () => {
    count++;
    return ' ';
  });
  for (const piece of rest.split(SEPARATORS)) {
    if (HAS_LETTER_OR_DIGIT.test(piece)) count++;
  }
  return count;
}

/** A deck's `visible_word_count`: the visible words of every slide's visible text (notes never count). */
export function countDeckVisibleWords(slides: ReadonlyArray<{ visible_text: string }>): number {
  return slides.reduce((sum, slide) => sum + countVisibleWords(slide.visible_text), 0);
}
