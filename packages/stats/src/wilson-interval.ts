import { ValidationError } from '@xsb/core/errors';
import { normalQuantile } from './normal-quantile';

export interface ShareInterval {
  n: number;
  k: number;
  share: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

/** Wilson score interval (1927): unlike the normal approximation, inside [0, 1] and honest at k = 0 or n. */
export function wilsonInterval(k: number, n: number, confidence = 0.95): ShareInterval {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) {
    throw new ValidationError(`wilson interval needs integers 0 <= k <= n, got k=${k} n=${n}`, {
      field: 'k, n',
    });
  }
  if (n === 0) return { n, k, share: null, ci_low: null, ci_high: null };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At k = 0 (k = n) the bound is exactly 0 (1); the formula leaves a rounding error there.
  return {
    n,
    k,
    share: p,
    ci_low: k === 0 ? 0 : Math.max(0, centre - half),
    ci_high: k === n ? 1 : Math.min(1, centre + half),
  };
}
