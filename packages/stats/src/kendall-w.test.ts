import { describe, expect, it } from 'vitest';
import { kendallW } from './kendall-w';

describe('kendallW', () => {
  it('is 1 when every rater ranks alike and 0 when two raters reverse each other', () => {
    expect(
      kendallW([
        [1, 2, 3],
        [1, 2, 3],
        [1, 2, 3],
      ]),
    ).toBe(1);
    expect(
      kendallW([
        [1, 2, 3, 4],
        [4, 3, 2, 1],
      ]),
    ).toBe(0);
  });

  it('matches a hand computation without ties', () => {
    // R = (1+1+2, 2+3+1, 3+2+3) = (4, 6, 8); mean 6; S = 4 + 0 + 4 = 8; W = 12·8 / (9·24) = 96/216.
    expect(
      kendallW([
        [1, 2, 3],
        [1, 3, 2],
        [2, 1, 3],
      ]),
    ).toBeCloseTo(96 / 216, 12);
  });

  it('applies the tie correction', () => {
    // Rater 2 ties the first two items: ranks (1.5, 1.5, 3). R = (2.5, 3.5, 6); mean 4; S = 2.25 + 0.25 + 4 = 6.5.
    // T = 2³ − 2 = 6; W = 12·6.5 / (4·24 − 2·6) = 78 / 84.
    expect(
      kendallW([
        [1, 2, 3],
        [5, 5, 9],
      ]),
    ).toBeCloseTo(78 / 84, 12);
  });

  it('is null for one rater, one item or nothing but ties, and refuses ragged rows', () => {
    expect(kendallW([[1, 2, 3]])).toBeNull();
    expect(kendallW([[1], [1]])).toBeNull();
    expect(
      kendallW([
        [1, 1],
        [2, 2],
      ]),
    ).toBeNull();
    expect(() => kendallW([[1, 2], [1]])).toThrow(/same items/);
  });
});
