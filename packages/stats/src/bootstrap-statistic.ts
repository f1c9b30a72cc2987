import { createSeededRandom } from '@xsb/core/seeded-random';
import { DEFAULT_RESAMPLES, quantileSorted } from './bootstrap-mean-interval';

export interface StatisticInterval {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  resamples: number;
  seed: number;
}

/** Percentile bootstrap of any statistic over n items; null interval when under half the resamples give a value. */
export function bootstrapStatistic(
  n: number,
  statistic: (indices: readonly number[]) => number | null,
  options: { seed: number; resamples?: number; confidence?: number },
): StatisticInterval {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const all = Array.from({ length: n }, (_, index) => index);
  const value = n === 0 ? null : statistic(all);
  const empty = { value, ci_low: null, ci_high: null, resamples, seed: options.seed };
  if (n === 0 || value === null) return empty;
  const random = createSeededRandom(options.seed);
  const values: number[] = [];
  const indices = new Array<number>(n);
  for (let r = 0; r < resamples; r += 1) {
    for (let i = 0; i < n; i += 1) indices[i] = Math.floor(random() * n);
    const resampled = statistic(indices);
    if (resampled !== null && Number.isFinite(resampled)) values.push(resampled);
  }
  if (values.length < resamples / 2) return empty;
  values.sort((x, y) => x - y);
  const alpha = (1 - (options.confidence ?? 0.95)) / 2;
  return {
    value,
    ci_low: quantileSorted(values, alpha),
    ci_high: quantileSorted(values, 1 - alpha),
    resamples,
    seed: options.seed,
  };
}
