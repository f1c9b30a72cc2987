import { describe, expect, it } from 'vitest';
import {
  MAPSTO_MARK,
  mapMathFontGlyphs,
  mathFontFamily,
  mayBeMathGlyph,
  NEGATION_MARK,
  resolveCombiningMarks,
} from './map-math-font-glyphs';

describe('mathFontFamily', () => {
  it('knows TeX math fonts by their PDF names, subset tag and size ignored', () => {
    expect(mathFontFamily('BIKXFS+CMSY10')).toBe('cmsy');
    expect(mathFontFamily('CMSY8')).toBe('cmsy');
    expect(mathFontFamily('ABCDEF+CMBSY10')).toBe('cmsy');
    expect(mathFontFamily('BKSOJG+CMMI10')).toBe('cmmi');
    expect(mathFontFamily('XYZABC+MSAM10')).toBe('msam');
    expect(mathFontFamily('MSBM7')).toBe('msbm');
    expect(mathFontFamily('AAABNJ+CMR10')).toBeUndefined();
    expect(mathFontFamily('Helvetica')).toBeUndefined();
    expect(mathFontFamily(undefined)).toBeUndefined();
  });
});

describe('mapMathFontGlyphs', () => {
  it('maps unnamed glyph codes of math fonts and leaves other fonts alone', () => {
    expect(mapMathFontGlyphs('6', 'BIKXFS+CMSY10')).toBe(NEGATION_MARK);
    expect(mapMathFontGlyphs('7', 'CMSY7')).toBe(MAPSTO_MARK);
    expect(mapMathFontGlyphs('4', 'CMSY10')).toBe('△');
    expect(mapMathFontGlyphs('R', 'MSBM10')).toBe('ℝ');
    expect(mapMathFontGlyphs('K', 'MSBM10')).toBe('𝕂');
    expect(mapMathFontGlyphs('\u0004', 'MSAM10')).toBe('■');
    expect(mapMathFontGlyphs('%', 'CMMI10')).toBe('ϱ');
    // Calligraphic capitals in CMSY and italic letters in CMMI are letters: kept.
    expect(mapMathFontGlyphs('A', 'CMSY10')).toBe('A');
    expect(mapMathFontGlyphs('x', 'CMMI10')).toBe('x');
    expect(mapMathFontGlyphs('6 = 7', 'AAABNJ+CMR10')).toBe('6 = 7');
    expect(mapMathFontGlyphs('R', undefined)).toBe('R');
  });

  it('flags only strings that could hold such a glyph', () => {
    expect(mayBeMathGlyph('6')).toBe(true);
    expect(mayBeMathGlyph('x ∈ y')).toBe(false);
    expect(mayBeMathGlyph('Ring')).toBe(false);
    expect(mayBeMathGlyph(' R ')).toBe(true);
    expect(mayBeMathGlyph('')).toBe(false);
  });
});

describe('resolveCombiningMarks', () => {
  it('joins the negation slash with the next character', () => {
    expect(resolveCombiningMarks(`a ${NEGATION_MARK} = b`)).toBe('a ≠ b');
    expect(resolveCombiningMarks(`x ${NEGATION_MARK}∈ A`)).toBe('x ∉ A');
    expect(resolveCombiningMarks(`A ${NEGATION_MARK}⊆ B`)).toBe('A ⊈ B');
    // No precomposed form: the combining long solidus stays after the character.
    expect(resolveCombiningMarks(`${NEGATION_MARK}◦`)).toBe('◦\u0338');
    expect(resolveCombiningMarks(`end ${NEGATION_MARK}\nnext`)).toBe('end /\nnext');
  });

  it('joins the maps-to stem with the arrow after it', () => {
    expect(resolveCombiningMarks(`x ${MAPSTO_MARK}→ f(x)`)).toBe('x ↦ f(x)');
    expect(resolveCombiningMarks(`x ${MAPSTO_MARK} → y`)).toBe('x ↦ y');
    expect(resolveCombiningMarks(`x ${MAPSTO_MARK}−→ y`)).toBe('x ⟼ y');
    expect(resolveCombiningMarks(`${MAPSTO_MARK} y`)).toBe('| y');
  });

  it('returns text without marks unchanged', () => {
    expect(resolveCombiningMarks('3 + 6 = 9')).toBe('3 + 6 = 9');
  });
});
