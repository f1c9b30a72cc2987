import { describe, expect, it } from 'vitest';
import { meanAndStd, snapUtility } from './snap-utility';

describe('snapUtility', () => {
  it('snaps to the nearest of 0, 0.3, 0.6, 1.0', () => {
    expect([0, 0.1, 0.2, 0.34, 0.5, 0.61, 0.79, 0.81, 1].map(snapUtility)).toEqual([
      0, 0, 0.3, 0.3, 0.6, 0.6, 0.6, 1, 1,
    ]);
  });
  it('sends exact midpoints to the higher level', () => {
    expect([0.15, 0.45, 0.8].map(snapUtility)).toEqual([0.3, 0.6, 1]);
    expect([0.1499, 0.4499, 0.7999].map(snapUtility)).toEqual([0, 0.3, 0.6]);
  });
  it('refuses values outside [0, 1] and non-numbers', () => {
    expect([-0.01, 1.01, 3, Number.NaN, Number.POSITIVE_INFINITY].map(snapUtility)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('meanAndStd', () => {
  it('uses the population standard deviation', () => {
    const { mean, std } = meanAndStd([0, 1]);
    expect(mean).toBe(0.5);
    expect(std).toBe(0.5);
    expect(meanAndStd([0.6, 0.6, 0.6]).std).toBe(0);
  });
});
