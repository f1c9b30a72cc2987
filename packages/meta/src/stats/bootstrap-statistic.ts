import { bootstrapMeanInterval, createSeededRandom, type MeanInterval, quantileSorted } from '@xsb/core';

export interface StatisticInterval {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  resamples: number;
  seed: number;
}

/**
 * Percentile bootstrap of any statistic over n items: `resamples` index resamples of size n drawn with
 * replacement (core's seeded mulberry32), the statistic computed on each, resamples where it is
 * undefined (null) left out. The interval is null when fewer than half of the resamples gave a value.
 */
export function bootstrapStatistic(
  n: number,
  statistic: (indices: readonly number[]) => number | null,
  options: { seed: number; resamples?: number; confidence?: number },
): StatisticInterval {
  const resamples = options.resamples ?? 2000;
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

/**
 * The mean paired change after − before over decks with its percentile bootstrap interval (core's
 * `bootstrapMeanInterval` on the per-deck differences, so deck-to-deck variation is what the interval
 * carries). Pairs where either value is missing are left out; `n` counts the pairs used.
 */
export function pairedMeanChange(
  pairs: ReadonlyArray<{ before: number | null; after: number | null }>,
  options: { seed: number; resamples?: number; confidence?: number },
): MeanInterval {
  const differences: number[] = [];
  for (const pair of pairs) {
    if (pair.before === null || pair.after === null) continue;
    differences.push(pair.after - pair.before);
  }
  return bootstrapMeanInterval(differences, options);
}
