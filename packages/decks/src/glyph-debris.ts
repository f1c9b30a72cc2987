/**
 * PDF math-font debris: TeX's negation slash and maps-to bar are glyphs of the symbol font that a text
 * layer without the font's mapping gives as the digits `6` and `7`, so "f ≠ id" reads "f 6 = id", "∉"
 * reads "6 ∈" and "x ↦ y" reads "x 7→ y". The digit stands glued to the operator, after a letter, a
 * closing bracket or ∅ (a term of the formula), never after another digit or an operator: "n = 6",
 * "16 = 2⁴" and "Kapitel 6." are not debris.
 */
const GLYPH_DEBRIS = /(?:[\p{L})\]}∅]\s?)(?:6\s?[=∈⊂⊆⊃⊇≡∼]|7\s?→)/u;

/** Stage 1 maps such glyphs back where the font tells it; a span it could not map stays off the slides. */
export function hasGlyphDebris(text: string): boolean {
  return GLYPH_DEBRIS.test(text);
}
