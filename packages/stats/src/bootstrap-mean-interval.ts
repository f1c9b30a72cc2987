import { createSeededRandom } from '@xsb/core/seeded-random';

/** Resamples of every bootstrap here unless the caller says otherwise. */
export const DEFAULT_RESAMPLES = 2000;

export interface MeanInterval {
  n: number;
  mean: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

/** Linear interpolation between order statistics (the "type 7" quantile of R and numpy). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower]!;
  return low + (sorted[upper]! - low) * (position - lower);
}

/** Mean and seeded percentile-bootstrap interval; n = 0 gives nulls, n = 1 a zero-width interval. */
export function bootstrapMeanInterval(
  values: readonly number[],
  options: { seed: number; resamples?: number; confidence?: number },
): MeanInterval {
  const n = values.length;
  if (n === 0) return { n, mean: null, ci_low: null, ci_high: null };
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / n;
  if (n === 1) return { n, mean, ci_low: mean, ci_high: mean };
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  const random = createSeededRandom(options.seed);
  const data = Float64Array.from(values);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let total = 0;
    for (let i = 0; i < n; i += 1) total += data[Math.floor(random() * n)]!;
    means[r] = total / n;
  }
  means.sort();
  const alpha = (1 - confidence) / 2;
  return { n, mean, ci_low: quantileSorted(means, alpha), ci_high: quantileSorted(means, 1 - alpha) };
}
