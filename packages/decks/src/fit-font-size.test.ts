import { describe, expect, it } from 'vitest';
import { estimateTextHeight, fitFontSize } from './fit-font-size';

describe('fitFontSize', () => {
  const area = { widthPt: 300, heightPt: 60 };

  it('estimates wrapped lines from the width: 30 characters per line at 20 pt in 300 pt', () => {
    expect(estimateTextHeight(['word'], 20, 300)).toBe(24);
    // 12 five-letter words need 71 characters with spaces: three lines of at most 30.
    expect(estimateTextHeight([Array.from({ length: 12 }, () => 'abcde').join(' ')], 20, 300)).toBe(72);
    expect(estimateTextHeight(['a', 'b'], 20, 300, 6)).toBe(54);
    // A word longer than a line breaks inside: 70 characters over 30 a line → 3 lines.
    expect(estimateTextHeight(['x'.repeat(70)], 20, 300)).toBe(72);
    // Han characters are twice as wide: 20 of them fill 40 of the 30 places → 2 lines.
    expect(estimateTextHeight(['深'.repeat(20)], 20, 300)).toBe(48);
  });

  it('keeps the largest size that fits and steps down for longer text, never below the last size', () => {
    expect(fitFontSize(['A short title'], area, [30, 24, 18])).toBe(30);
    // 28 characters: two lines at 30 pt (72 pt, too tall), two lines at 24 pt (57.6 pt, fits).
    expect(fitFontSize(['A title that needs two lines'], area, [30, 24, 18])).toBe(24);
    expect(fitFontSize(['x '.repeat(400)], area, [30, 24, 18])).toBe(18);
  });
});
