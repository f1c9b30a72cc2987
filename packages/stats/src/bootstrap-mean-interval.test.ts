import { createSeededRandom } from '@xsb/core/seeded-random';
import { describe, expect, it } from 'vitest';
import { bootstrapMeanInterval, quantileSorted } from './bootstrap-mean-interval';

describe('bootstrapMeanInterval', () => {
  const values = [0.1, 0.4, 0.35, 0.8, 0.55, 0.6, 0.2, 0.9];

  it('is reproducible for a seed and differs for another seed', () => {
    const a = bootstrapMeanInterval(values, { seed: 7, resamples: 500 });
    const b = bootstrapMeanInterval(values, { seed: 7, resamples: 500 });
    const c = bootstrapMeanInterval(values, { seed: 8, resamples: 500 });
    expect(a).toEqual(b);
    expect(c.ci_low).not.toBe(a.ci_low);
    expect(a.mean).toBeCloseTo(values.reduce((s, v) => s + v, 0) / values.length, 12);
  });

  it('brackets the mean and stays inside the data range', () => {
    const result = bootstrapMeanInterval(values, { seed: 1 });
    expect(result.ci_low!).toBeLessThan(result.mean!);
    expect(result.ci_high!).toBeGreaterThan(result.mean!);
    expect(result.ci_low!).toBeGreaterThanOrEqual(0.1);
    expect(result.ci_high!).toBeLessThanOrEqual(0.9);
  });

  it('covers the true mean about 95% of the time (seeded simulation)', () => {
    const random = createSeededRandom(99);
    let covered = 0;
    const trials = 200;
    for (let t = 0; t < trials; t += 1) {
      const sample = Array.from({ length: 30 }, () => random());
      const r = bootstrapMeanInterval(sample, { seed: t, resamples: 400 });
      if (r.ci_low! <= 0.5 && 0.5 <= r.ci_high!) covered += 1;
    }
    expect(covered / trials).toBeGreaterThan(0.88);
    expect(covered / trials).toBeLessThan(0.99);
  });

  it('handles n = 0 and n = 1 without NaN', () => {
    expect(bootstrapMeanInterval([], { seed: 1 })).toEqual({ n: 0, mean: null, ci_low: null, ci_high: null });
    expect(bootstrapMeanInterval([0.4], { seed: 1 })).toEqual({ n: 1, mean: 0.4, ci_low: 0.4, ci_high: 0.4 });
  });

  it('interpolates quantiles linearly', () => {
    expect(quantileSorted([0, 10], 0.25)).toBe(2.5);
  });
});
