import { type ClusterBootstrapOptions, clusterBootstrapMean, clusterIndices } from './cluster-bootstrap';
import { sampleStandardDeviation } from './normal-quantile';
import { type PairedVerdict, pairedVerdict } from './paired-verdict';
import { minimumDetectableEffect, type PowerSettings } from './power';

/** One paired unit: its cluster (the case) and the two sides' values. */
export interface PairedUnit {
  cluster: string;
  a: number;
  b: number;
}

export interface PairedResult {
  n_cases: number;
  n_units: number;
  /** Mean over units of b − a. */
  mean_diff: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Sample sd of the per-case mean differences. */
  sd_case_diff: number | null;
  mde: number | null;
  verdict: PairedVerdict | null;
}

/**
 * A paired comparison of B against A over the same units: the mean of the per-unit differences B − A
 * with a cluster-bootstrap interval (clusters resampled with all their units), the spread of the
 * per-cluster mean differences, the minimum detectable effect it implies, and spec 002's verdict.
 */
export function pairedComparison(
  units: readonly PairedUnit[],
  options: ClusterBootstrapOptions & PowerSettings,
): PairedResult {
  const diffs = Float64Array.from(units, (unit) => unit.b - unit.a);
  const { indices, count } = clusterIndices(units.map((unit) => unit.cluster));
  const interval = clusterBootstrapMean(diffs, indices, options);
  const sums = new Float64Array(count);
  const counts = new Float64Array(count);
  indices.forEach((cluster, i) => {
    sums[cluster]! += diffs[i]!;
    counts[cluster]! += 1;
  });
  const caseMeans = Array.from(sums, (sum, i) => sum / counts[i]!);
  const sd = sampleStandardDeviation(caseMeans);
  return {
    n_cases: count,
    n_units: units.length,
    mean_diff: interval.mean,
    ci_low: interval.ci_low,
    ci_high: interval.ci_high,
    sd_case_diff: sd,
    mde: minimumDetectableEffect(sd, count, options),
    verdict: pairedVerdict(interval.ci_low, interval.ci_high),
  };
}
