import { ValidationError } from '@xsb/core/errors';
import { describe, expect, it } from 'vitest';
import { bootstrapStatistic } from './bootstrap-statistic';
import { cohenKappa } from './cohen-kappa';
import { kendallTauB } from './kendall-tau';
import { krippendorffAlphaNominal } from './krippendorff-alpha';
import { normalQuantile } from './normal-quantile';
import { wilsonInterval } from './wilson-interval';

// Ten items, two raters:
//   item  1   2   3   4   5   6   7   8   9   10
//   A     y   y   y   y   y   y   n   n   n   n
//   B     y   y   y   y   n   n   y   n   n   n
// Agreement: items 1-4 and 8-10 → 7/10 = 0.7. Marginals A: y 6/10, n 4/10; B: y 5/10, n 5/10.
// p_e = 0.6·0.5 + 0.4·0.5 = 0.5, so kappa = (0.7 − 0.5) / (1 − 0.5) = 0.4.
// Alpha: every unit has m = 2 values, each ordered pair weighs 1/(m − 1) = 1.
//   o_yy = 4 units · 2 = 8, o_nn = 3 · 2 = 6, o_yn = o_ny = 3 (items 5, 6, 7).
//   n_y = 8 + 3 = 11, n_n = 6 + 3 = 9, n = 20.
//   alpha = 1 − (n − 1)·(o_yn + o_ny) / (n_y·n_n + n_n·n_y) = 1 − 19·6 / 198 = 14/33 = 0.4242…
const A = ['y', 'y', 'y', 'y', 'y', 'y', 'n', 'n', 'n', 'n'];
const B = ['y', 'y', 'y', 'y', 'n', 'n', 'y', 'n', 'n', 'n'];

describe('cohenKappa', () => {
  it('matches the hand-computed table', () => {
    const result = cohenKappa(A, B);
    expect(result.n).toBe(10);
    expect(result.agreement).toBeCloseTo(0.7, 12);
    expect(result.expected_agreement).toBeCloseTo(0.5, 12);
    expect(result.kappa).toBeCloseTo(0.4, 12);
  });

  it('is 1 for identical raters, negative below chance, null when undefined', () => {
    expect(cohenKappa(A, A).kappa).toBeCloseTo(1, 12);
    // Perfect disagreement with balanced marginals: p_o = 0, p_e = 0.5 → kappa = −1.
    expect(cohenKappa(['y', 'n'], ['n', 'y']).kappa).toBeCloseTo(-1, 12);
    expect(cohenKappa(['y', 'y'], ['y', 'y']).kappa).toBeNull();
    expect(cohenKappa([], []).agreement).toBeNull();
    expect(() => cohenKappa(['y'], [])).toThrow(ValidationError);
  });
});

describe('krippendorffAlphaNominal', () => {
  it('matches the hand-computed two-coder table', () => {
    const units = A.map((value, index) => [value, B[index]!]);
    const result = krippendorffAlphaNominal(units);
    expect(result.alpha).toBeCloseTo(14 / 33, 12);
    expect(result.pairable_values).toBe(20);
  });

  it("reproduces Krippendorff's (2011) four-coder example with missing values: 0.743", () => {
    // Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011), section C: 4 coders, 12 units.
    const coders = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const units = coders[0]!.map((_, unit) =>
      coders.map((coder) => (coder[unit] === null ? null : String(coder[unit]))),
    );
    const result = krippendorffAlphaNominal(units);
    // Unit 12 has one value only: not pairable. 40 pairable values remain.
    expect(result.pairable_units).toBe(11);
    expect(result.pairable_values).toBe(40);
    expect(result.alpha).toBeCloseTo(0.743, 3);
  });

  it('is null without expected disagreement', () => {
    expect(
      krippendorffAlphaNominal([
        ['a', 'a'],
        ['a', 'a'],
      ]).alpha,
    ).toBeNull();
    expect(krippendorffAlphaNominal([['a']]).alpha).toBeNull();
  });
});

describe('kendallTauB', () => {
  it('counts concordant and discordant pairs', () => {
    // Pairs of [1,2,3,4] vs [1,3,2,4]: only (2,3) is discordant → (5 − 1) / 6.
    expect(kendallTauB([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(4 / 6, 12);
    expect(kendallTauB([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
  });

  it('corrects for ties (tau-b, as scipy.stats.kendalltau)', () => {
    // x = [1,1,2,2], y = [1,2,3,3]: 4 concordant, 0 discordant, 2 pairs tied in x, 1 in y.
    // tau-b = 4 / sqrt((6 − 2)(6 − 1)) = 4 / sqrt(20) = 0.894427…
    expect(kendallTauB([1, 1, 2, 2], [1, 2, 3, 3])).toBeCloseTo(4 / Math.sqrt(20), 12);
    expect(kendallTauB([1, 1], [1, 2])).toBeNull();
    expect(kendallTauB([1], [1])).toBeNull();
  });
});

describe('wilsonInterval', () => {
  it('gives the textbook interval for 8 of 10', () => {
    const result = wilsonInterval(8, 10);
    expect(result.share).toBe(0.8);
    expect(result.ci_low).toBeCloseTo(0.4902, 4);
    expect(result.ci_high).toBeCloseTo(0.9433, 4);
  });

  it('stays inside [0, 1] at the edges and is null for n = 0', () => {
    const none = wilsonInterval(0, 5);
    expect(none.ci_low).toBe(0);
    expect(none.ci_high).toBeGreaterThan(0.4);
    expect(wilsonInterval(5, 5).ci_high).toBe(1);
    expect(wilsonInterval(0, 0).share).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(ValidationError);
  });

  it('uses the right z', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829, 6);
  });
});

describe('bootstrapStatistic', () => {
  it('bootstrapStatistic brackets the statistic and is reproducible', () => {
    const values = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
    const share = (indices: readonly number[]) =>
      indices.reduce((sum, i) => sum + values[i]!, 0) / indices.length;
    const result = bootstrapStatistic(values.length, share, { seed: 3, resamples: 500 });
    expect(result.value).toBeCloseTo(0.7, 12);
    expect(result.ci_low!).toBeLessThan(0.7);
    expect(result.ci_high!).toBeGreaterThan(0.7);
    expect(bootstrapStatistic(values.length, share, { seed: 3, resamples: 500 })).toEqual(result);
    expect(bootstrapStatistic(0, share, { seed: 3 }).value).toBeNull();
  });
});
