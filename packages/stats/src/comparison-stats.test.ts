import { ValidationError } from '@xsb/core/errors';
import { createSeededRandom } from '@xsb/core/seeded-random';
import { describe, expect, it } from 'vitest';
import { clusterBootstrapMean, clusterIndices } from './cluster-bootstrap';
import { discordantPairs, exactMcNemar } from './exact-mcnemar';
import { holmAdjust } from './holm';
import { normalQuantile, sampleStandardDeviation } from './normal-quantile';
import { type PairedUnit, pairedComparison } from './paired-comparison';
import { pairedVerdict } from './paired-verdict';
import { casesNeeded, minimumDetectableEffect } from './power';
import { shapleyValues } from './shapley';

/** C(n, k) as an exact BigInt, for sums that do not trust floating point. */
function choose(n: number, k: number): bigint {
  let result = 1n;
  for (let i = 1; i <= k; i += 1) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/** Two-sided exact McNemar p from integer binomial sums: min(1, 2·Σ_{i≤min} C(n,i) / 2^n). */
function mcnemarByIntegers(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0n;
  for (let i = 0; i <= Math.min(b, c); i += 1) tail += choose(n, i);
  // 2·tail/2^n = tail / 2^(n-1), scaled to keep 15 significant digits.
  const scaled = (tail * 10n ** 18n) / 2n ** BigInt(n - 1);
  return Math.min(1, Number(scaled) / 1e18);
}

describe('exact McNemar', () => {
  it.each([
    [0, 0],
    [1, 0],
    [0, 5],
    [3, 7],
    [10, 10],
    [2, 14],
    [40, 61],
    [120, 80],
  ])('b=%i c=%i matches the integer binomial sum', (b, c) => {
    const result = exactMcNemar(b, c);
    expect(result.b).toBe(b);
    expect(result.c).toBe(c);
    expect(result.p).toBeCloseTo(mcnemarByIntegers(b, c), 12);
  });

  it('knows textbook values and survives huge counts', () => {
    // b=1, c=9: 2 × (1 + 10) / 1024.
    expect(exactMcNemar(1, 9).p).toBeCloseTo(22 / 1024, 15);
    expect(exactMcNemar(5, 5).p).toBe(1);
    const big = exactMcNemar(5000, 5300);
    expect(big.p).toBeGreaterThan(0);
    expect(big.p).toBeLessThan(0.01);
    expect(() => exactMcNemar(-1, 2)).toThrow(ValidationError);
  });

  it('counts discordant pairs with b = A yes & B no', () => {
    expect(
      discordantPairs([
        [true, false],
        [true, false],
        [false, true],
        [true, true],
        [false, false],
      ]),
    ).toEqual({ b: 2, c: 1 });
  });
});

describe('Holm', () => {
  /** Holm by its definition: reject in order while p_(i) ≤ α/(m−i+1); adjusted p = smallest α that rejects. */
  function holmByDefinition(p: number[]): number[] {
    const m = p.length;
    return p.map((_, target) => {
      // The smallest alpha on a fine grid at which the target hypothesis is rejected.
      const sorted = p.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
      let lo = 0;
      let hi = 1;
      const rejects = (alpha: number) => {
        for (let i = 0; i < m; i += 1) {
          if (sorted[i]!.value > alpha / (m - i)) return false;
          if (sorted[i]!.index === target) return true;
        }
        return false;
      };
      if (!rejects(1)) return 1;
      for (let step = 0; step < 60; step += 1) {
        const mid = (lo + hi) / 2;
        if (rejects(mid)) hi = mid;
        else lo = mid;
      }
      return hi;
    });
  }

  it('matches the step-down definition and stays monotone', () => {
    const random = createSeededRandom(3);
    for (let trial = 0; trial < 20; trial += 1) {
      const p = Array.from({ length: 1 + (trial % 7) }, () => random() ** 3);
      const adjusted = holmAdjust(p);
      const expected = holmByDefinition(p);
      adjusted.forEach((value, i) => {
        expect(value).toBeCloseTo(expected[i]!, 9);
      });
      const order = p.map((v, i) => [v, adjusted[i]!] as const).sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < order.length; i += 1) expect(order[i]![1]).toBeGreaterThanOrEqual(order[i - 1]![1]);
    }
    expect(holmAdjust([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holmAdjust([0.5, 0.9])).toEqual([1, 1]);
    expect(holmAdjust([])).toEqual([]);
  });
});

describe('Shapley', () => {
  /** Average marginal contribution over every order of the players (n! permutations). */
  function shapleyByPermutations(n: number, v: (mask: number) => number): number[] {
    const phi = new Array<number>(n).fill(0);
    const orders: number[][] = [];
    const permute = (prefix: number[], rest: number[]) => {
      if (rest.length === 0) orders.push(prefix);
      rest.forEach((x, i) => {
        permute([...prefix, x], [...rest.slice(0, i), ...rest.slice(i + 1)]);
      });
    };
    permute(
      [],
      Array.from({ length: n }, (_, i) => i),
    );
    for (const order of orders) {
      let mask = 0;
      for (const player of order) {
        phi[player]! += v(mask | (1 << player)) - v(mask);
        mask |= 1 << player;
      }
    }
    return phi.map((x) => x / orders.length);
  }

  it('equals the permutation average and is efficient', () => {
    const random = createSeededRandom(11);
    for (const n of [1, 2, 3, 4, 5]) {
      const values = Array.from({ length: 1 << n }, () => random());
      const phi = shapleyValues(n, values);
      const expected = shapleyByPermutations(n, (mask) => values[mask]!);
      phi.forEach((value, i) => {
        expect(value).toBeCloseTo(expected[i]!, 12);
      });
      const total = phi.reduce((a, b) => a + b, 0);
      expect(total).toBeCloseTo(values[(1 << n) - 1]! - values[0]!, 12);
    }
  });

  it('gives an additive game its own terms and a null player nothing', () => {
    // v(S) = 0.1·[0∈S] + 0.3·[2∈S]; player 1 is null.
    const v = Array.from({ length: 8 }, (_, mask) => (mask & 1 ? 0.1 : 0) + (mask & 4 ? 0.3 : 0));
    const phi = shapleyValues(3, v);
    expect(phi[0]).toBeCloseTo(0.1, 12);
    expect(phi[1]).toBeCloseTo(0, 12);
    expect(phi[2]).toBeCloseTo(0.3, 12);
  });
});

describe('cluster bootstrap', () => {
  it('is seeded, moves clusters together and handles the edges', () => {
    const values = [1, 1, 1, 5, 5, 5, 3, 3, 3];
    const { indices } = clusterIndices(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']);
    const one = clusterBootstrapMean(values, indices, { seed: 7, resamples: 500 });
    const two = clusterBootstrapMean(values, indices, { seed: 7, resamples: 500 });
    expect(one).toEqual(two);
    expect(one.mean).toBe(3);
    expect(one.n_clusters).toBe(3);
    // Every resample mean is a mean of three cluster means from {1, 3, 5}: inside [1, 5].
    expect(one.ci_low!).toBeGreaterThanOrEqual(1);
    expect(one.ci_high!).toBeLessThanOrEqual(5);
    expect(clusterBootstrapMean([2, 4], [0, 0], { seed: 1 })).toMatchObject({
      mean: 3,
      ci_low: 3,
      ci_high: 3,
    });
    expect(clusterBootstrapMean([], [], { seed: 1 }).mean).toBeNull();
  });

  it('is wider than the unit bootstrap when units of a cluster agree (design effect)', () => {
    const random = createSeededRandom(5);
    const values: number[] = [];
    const labels: string[] = [];
    for (let c = 0; c < 40; c += 1) {
      const level = random();
      for (let u = 0; u < 5; u += 1) {
        values.push(level + 0.01 * random());
        labels.push(`c${c}`);
      }
    }
    const clustered = clusterBootstrapMean(values, clusterIndices(labels).indices, { seed: 1 });
    const independent = clusterBootstrapMean(
      values,
      values.map((_, i) => i),
      { seed: 1 },
    );
    const width = (x: { ci_low: number | null; ci_high: number | null }) => x.ci_high! - x.ci_low!;
    expect(width(clustered)).toBeGreaterThan(1.8 * width(independent));
  });

  it('takes cluster labels as they are or as dense indices, with the same result', () => {
    const values = [1, 2, 3, 4, 5, 6, 7];
    const labels = ['c2', 'c1', 'c2', 'c3', 'c1', 'c3', 'c3'];
    const byLabel = clusterBootstrapMean(values, labels, { seed: 5, resamples: 300 });
    expect(byLabel).toEqual(
      clusterBootstrapMean(values, clusterIndices(labels).indices, { seed: 5, resamples: 300 }),
    );
    expect(byLabel.n_clusters).toBe(3);
    expect(() => clusterBootstrapMean(values, labels.slice(1), { seed: 5 })).toThrow(ValidationError);
  });
});

describe('verdicts and the paired comparison', () => {
  it('reads intervals as spec 002 does', () => {
    expect(pairedVerdict(0.01, 0.2)).toBe('real');
    expect(pairedVerdict(-0.3, -0.1)).toBe('real');
    expect(pairedVerdict(-0.1, 0.2)).toBe('no evidence');
    expect(pairedVerdict(0.1, 0.1)).toBe('indeterminate');
    expect(pairedVerdict(0, 0)).toBe('no evidence');
    expect(pairedVerdict(null, null)).toBeNull();
  });

  it('calls identical differences indeterminate despite rounding', () => {
    const units: PairedUnit[] = Array.from({ length: 30 }, (_, i) => ({
      cluster: `c${i % 10}`,
      a: 0.3,
      b: 0.4,
    }));
    const result = pairedComparison(units, { seed: 1 });
    expect(result.verdict).toBe('indeterminate');
    expect(result.mean_diff).toBeCloseTo(0.1, 12);
    expect(result.sd_case_diff).toBeCloseTo(0, 12);
  });

  /** System B = A + effect per case, plus unit noise; cases as clusters of three audiences. */
  function planted(seed: number, effect: number): PairedUnit[] {
    const random = createSeededRandom(seed);
    const units: PairedUnit[] = [];
    for (let c = 0; c < 12; c += 1) {
      const base = 0.3 + 0.4 * random();
      for (let audience = 0; audience < 3; audience += 1) {
        const a = base + 0.15 * (random() - 0.5);
        units.push({ cluster: `case${c}`, a, b: a + effect + 0.15 * (random() - 0.5) });
      }
    }
    return units;
  }

  it('finds a planted effect in most seeds and no effect where none was planted', () => {
    let realPlanted = 0;
    let quietNull = 0;
    for (let seed = 1; seed <= 50; seed += 1) {
      if (pairedComparison(planted(seed, 0.1), { seed, resamples: 1000 }).verdict === 'real')
        realPlanted += 1;
      if (pairedComparison(planted(1000 + seed, 0), { seed, resamples: 1000 }).verdict === 'no evidence')
        quietNull += 1;
    }
    expect(realPlanted).toBeGreaterThanOrEqual(45);
    expect(quietNull).toBeGreaterThanOrEqual(45);
  });
});

describe('power', () => {
  it('uses the normal quantiles and the design effect', () => {
    // Reference values (R's qnorm) in the central region and both tails.
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 14);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 14);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 13);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361340902404056, 12);
    expect(sampleStandardDeviation([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3), 14);
    expect(sampleStandardDeviation([1])).toBeNull();
    const z = normalQuantile(0.975) + normalQuantile(0.8);
    expect(minimumDetectableEffect(0.2, 16)).toBeCloseTo((z * 0.2) / 4, 12);
    expect(minimumDetectableEffect(0.2, 1)).toBeNull();
    const plain = casesNeeded({ sd: 0.2, effect: 0.05 });
    expect(plain.units).toBe(Math.ceil(((z * 0.2) / 0.05) ** 2));
    expect(plain.cases).toBe(plain.units);
    const nested = casesNeeded({ sd: 0.2, effect: 0.05, icc: 0.5, perCluster: 3 });
    expect(nested.design_effect).toBe(2);
    expect(nested.rows).toBe(plain.units * 2);
    expect(nested.cases).toBe(Math.ceil((plain.units * 2) / 3));
    expect(() => casesNeeded({ sd: 0, effect: 0.1 })).toThrow(ValidationError);
  });
});
