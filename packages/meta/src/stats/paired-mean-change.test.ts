import { describe, expect, it } from 'vitest';
import { pairedMeanChange } from './paired-mean-change';

describe('pairedMeanChange', () => {
  it('is the mean of after − before with a seeded interval', () => {
    const pairs = [
      { before: 0.8, after: 0.6 },
      { before: 0.5, after: 0.5 },
      { before: 0.9, after: 0.6 },
      { before: null, after: 0.1 },
    ];
    const first = pairedMeanChange(pairs, { seed: 7 });
    expect(first.n).toBe(3);
    expect(first.mean).toBeCloseTo((-0.2 + 0 - 0.3) / 3, 12);
    expect(first.ci_low!).toBeLessThanOrEqual(first.mean!);
    expect(first.ci_high!).toBeGreaterThanOrEqual(first.mean!);
    expect(pairedMeanChange(pairs, { seed: 7 })).toEqual(first);
  });
});
