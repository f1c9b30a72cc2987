import { describe, expect, it } from 'vitest';
import { hasGlyphDebris } from './glyph-debris';

describe('hasGlyphDebris', () => {
  it('finds the digits a math font leaves for ≠, ∉ and ↦ beside a formula term', () => {
    for (const text of ['Ist f 6 = id, dann', 'Fix( ˜f ) 6 = ∅ schon', 'P 6∈ g', 'x 7→ f(x)', 'A 6⊂ B'])
      expect(hasGlyphDebris(text), text).toBe(true);
  });

  it('leaves numbers in prose and formulas alone', () => {
    for (const text of [
      'n = 6 gilt',
      '16 = 2 · 8',
      'Kapitel 6. Flächen',
      'Tabelle 6 | 12',
      'Seite 7 zeigt',
      'x = 7 → y',
    ])
      expect(hasGlyphDebris(text), text).toBe(false);
  });
});
