/**
 * Arial's average advance for mixed-case prose is about 0.46 of the type size (measured on LibreOffice
 * renders of the baseline theme); 0.5 errs on the wide side so estimates overflow less, not more.
 */
const AVERAGE_GLYPH_EM = 0.5;
const LINE_HEIGHT_EM = 1.2;

/** Points, after insets, bullet indents and cell margins. */
export interface TextArea {
  widthPt: number;
  heightPt: number;
}

/** CJK and full-width characters are about one em wide: two average glyphs. */
const WIDE_CHARACTER =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\uff00-\uffef]/u;

function glyphUnits(word: string): number {
  let units = 0;
  for (const character of word) units += WIDE_CHARACTER.test(character) ? 2 : 1;
  return units;
}

/** Lines a paragraph takes when wrapped greedily at spaces; a word longer than a line breaks inside. */
function wrappedLines(text: string, sizePt: number, widthPt: number): number {
  const perLine = Math.max(2, Math.floor(widthPt / (sizePt * AVERAGE_GLYPH_EM)));
  let lines = 1;
  let used = 0;
  for (const word of text.split(/\s+/).filter((item) => item !== '')) {
    const units = glyphUnits(word);
    const needed = used === 0 ? units : used + 1 + units;
    if (needed <= perLine) {
      used = needed;
      continue;
    }
    if (used > 0) lines++;
    lines += Math.floor((units - 1) / perLine);
    used = ((units - 1) % perLine) + 1;
  }
  return lines;
}

export function estimateTextHeight(paragraphs: string[], sizePt: number, widthPt: number, gapPt = 0): number {
  const lines = paragraphs.reduce((sum, text) => sum + wrappedLines(text, sizePt, widthPt), 0);
  return lines * sizePt * LINE_HEIGHT_EM + Math.max(0, paragraphs.length - 1) * gapPt;
}

/** The largest of `sizes` that fits; the smallest when none does (text never goes below the floor). */
export function fitFontSize(
  paragraphs: string[],
  area: TextArea,
  sizes: readonly number[],
  gapPt = 0,
): number {
  for (const size of sizes) {
    if (estimateTextHeight(paragraphs, size, area.widthPt, gapPt) <= area.heightPt) return size;
  }
  return sizes[sizes.length - 1] as number;
}
