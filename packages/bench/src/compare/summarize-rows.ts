import { compareCodePoints, createSeededRandom, deriveSeed } from '@xsb/core';
import { clusterBootstrapMean, quantileSorted, shapleyValues } from '@xsb/stats';
import { BENCH_METRICS, metricValue } from '../bench-metrics';
import type { BenchRow } from '../schemas/bench-row';
import type { BenchShapley, BenchStat } from '../schemas/bench-summary';

export interface SummaryOptions {
  seed: number;
  resamples: number;
  confidence: number;
}

/** The metrics that have a value in some row (rubric metrics only appear when a case has an instance). */
export function presentMetrics(rows: readonly BenchRow[]): string[] {
  return BENCH_METRICS.filter((metric) => rows.some((row) => metricValue(row, metric) !== null));
}

/** Mean of a metric over rows with a 95% cluster-bootstrap interval, clusters = cases. */
export function statOf(
  rows: readonly BenchRow[],
  metric: string,
  options: SummaryOptions,
  label: string,
): BenchStat {
  const values: number[] = [];
  const cases: string[] = [];
  for (const row of rows) {
    const value = metricValue(row, metric);
    if (value === null) continue;
    values.push(value);
    cases.push(row.case);
  }
  const interval = clusterBootstrapMean(values, cases, {
    seed: deriveSeed(options.seed, `${label}|${metric}`),
    resamples: options.resamples,
    confidence: options.confidence,
  });
  return {
    mean: interval.mean,
    ci_low: interval.ci_low,
    ci_high: interval.ci_high,
    n: values.length,
    n_cases: interval.n_clusters,
  };
}

function statsOf(
  rows: readonly BenchRow[],
  metrics: readonly string[],
  options: SummaryOptions,
  label: string,
) {
  return Object.fromEntries(metrics.map((metric) => [metric, statOf(rows, metric, options, label)]));
}

function groupBy(rows: readonly BenchRow[], key: (row: BenchRow) => string): Map<string, BenchRow[]> {
  const groups = new Map<string, BenchRow[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return new Map([...groups.entries()].sort((x, y) => compareCodePoints(x[0], y[0])));
}

/** Rows, failed rows, overall, by audience and by scene statistics of a set of rows. */
export function groupStats(
  rows: readonly BenchRow[],
  metrics: readonly string[],
  options: SummaryOptions,
  label: string,
) {
  const nested = (key: (row: BenchRow) => string, kind: string) =>
    Object.fromEntries(
      [...groupBy(rows, key).entries()].map(([name, group]) => [
        name,
        statsOf(group, metrics, options, `${label}|${kind}:${name}`),
      ]),
    );
  return {
    rows: rows.length,
    failed_rows: rows.filter((row) => row.error !== null).length,
    overall: statsOf(rows, metrics, options, `${label}|overall`),
    by_audience: nested((row) => row.audience, 'audience'),
    by_scene: nested((row) => row.scene, 'scene'),
  };
}

/**
 * Shapley values of the factors of a factorial for one metric. v(S) is the mean of the metric over
 * every row of configuration F:S that has a value (all systems and audiences; error rows excluded).
 * φᵢ is exact over subsets; its interval resamples cases with replacement (seeded), recomputes every
 * v(S) on the drawn cases and takes the percentile interval of φᵢ. Null values when some subset has
 * no value at all (e.g. every row of it failed): Shapley needs all 2ⁿ of them.
 */
export function shapleyOf(
  rows: readonly BenchRow[],
  subsets: ReadonlyArray<{ mask: number; name: string; factors: readonly string[] }>,
  factors: readonly string[],
  metric: string,
  options: SummaryOptions,
): BenchShapley {
  const caseIds = [...new Set(rows.map((row) => row.case))].sort(compareCodePoints);
  const caseIndex = new Map(caseIds.map((id, i) => [id, i]));
  const size = 1 << factors.length;
  // Per subset and case: sum and count of the metric, so a resample costs O(subsets × cases).
  const sums = Array.from({ length: size }, () => new Float64Array(caseIds.length));
  const counts = Array.from({ length: size }, () => new Float64Array(caseIds.length));
  const maskOf = new Map(subsets.map((subset) => [subset.name, subset.mask]));
  for (const row of rows) {
    const mask = maskOf.get(row.configuration);
    const value = metricValue(row, metric);
    if (mask === undefined || value === null) continue;
    const c = caseIndex.get(row.case)!;
    sums[mask]![c]! += value;
    counts[mask]![c]! += 1;
  }
  const subsetValue = (mask: number, weights: Float64Array | null): number | null => {
    let sum = 0;
    let count = 0;
    for (let c = 0; c < caseIds.length; c += 1) {
      const w = weights ? weights[c]! : 1;
      sum += w * sums[mask]![c]!;
      count += w * counts[mask]![c]!;
    }
    return count > 0 ? sum / count : null;
  };
  const point = Array.from({ length: size }, (_, mask) => subsetValue(mask, null));
  const complete = point.every((value) => value !== null);
  const phi = complete ? shapleyValues(factors.length, point as number[]) : null;
  const draws = factors.map(() => new Float64Array(options.resamples));
  let usable = 0;
  if (complete) {
    const random = createSeededRandom(deriveSeed(options.seed, `shapley|${metric}`));
    const weights = new Float64Array(caseIds.length);
    for (let r = 0; r < options.resamples; r += 1) {
      weights.fill(0);
      for (let c = 0; c < caseIds.length; c += 1) weights[Math.floor(random() * caseIds.length)]! += 1;
      const values = Array.from({ length: size }, (_, mask) => subsetValue(mask, weights));
      // A resample that drew no case with a value for some subset cannot give φ: skip it.
      if (values.some((value) => value === null)) continue;
      const drawn = shapleyValues(factors.length, values as number[]);
      drawn.forEach((value, i) => {
        draws[i]![usable] = value;
      });
      usable += 1;
    }
  }
  const alpha = (1 - options.confidence) / 2;
  return {
    metric,
    value_function:
      'mean of the metric over every row of configuration F:S with a value (all systems and audiences; rows with an error excluded)',
    factors: factors.map((factor, i) => {
      if (!phi || usable === 0) return { factor, value: null, ci_low: null, ci_high: null };
      const sorted = draws[i]!.slice(0, usable).sort();
      return {
        factor,
        value: phi[i]!,
        ci_low: quantileSorted(sorted, alpha),
        ci_high: quantileSorted(sorted, 1 - alpha),
      };
    }),
    subsets: subsets.map((subset) => ({
      configuration: subset.name,
      factors: [...subset.factors],
      value: point[subset.mask] ?? null,
      n: rows.filter((row) => row.configuration === subset.name && metricValue(row, metric) !== null).length,
    })),
  };
}
