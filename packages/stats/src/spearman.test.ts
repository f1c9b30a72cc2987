import { ValidationError } from '@xsb/core/errors';
import { describe, expect, it } from 'vitest';
import { averageRanks, spearman } from './spearman';

describe('spearman', () => {
  it('averages tied ranks', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
  });
  it('is the Pearson correlation of average ranks on tied data', () => {
    // ranks [1, 2.5, 2.5, 4, 5] and [2, 1, 3.5, 3.5, 5]: covariance 7.25, variances 9.5 and 9.5
    expect(spearman([1, 2, 2, 3, 4], [2, 1, 3, 3, 5])).toBeCloseTo(7.25 / 9.5, 12);
    expect(spearman([1, 2, 3], [3, 2, 1])).toBe(-1);
  });
  it('matches an independent Python (scipy-free) computation on heavily tied data', () => {
    // python3: fractional ranks of each list, then Pearson correlation → 0.1384567651467695
    expect(spearman([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4])).toBeCloseTo(
      0.1384567651467695,
      12,
    );
  });
  it('is undefined for constant input', () => {
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearman([1], [2])).toBeNull();
  });
  it('refuses lists of different lengths with the core error type', () => {
    expect(() => spearman([1, 2, 3], [1, 2])).toThrow(ValidationError);
  });
});
