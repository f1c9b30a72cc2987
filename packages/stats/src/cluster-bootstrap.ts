import { ValidationError } from '@xsb/core/errors';
import { createSeededRandom } from '@xsb/core/seeded-random';
import { DEFAULT_RESAMPLES, quantileSorted } from './bootstrap-mean-interval';

export interface ClusterInterval {
  /** Mean over every unit. */
  mean: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n_units: number;
  n_clusters: number;
}

export interface ClusterBootstrapOptions {
  seed: number;
  resamples?: number;
  confidence?: number;
}

/** Dense cluster indices (0..k−1, in first-seen order) for per-unit cluster labels. */
export function clusterIndices(labels: readonly string[]): { indices: Int32Array; count: number } {
  const ids = new Map<string, number>();
  const indices = new Int32Array(labels.length);
  labels.forEach((label, i) => {
    let id = ids.get(label);
    if (id === undefined) {
      id = ids.size;
      ids.set(label, id);
    }
    indices[i] = id;
  });
  return { indices, count: ids.size };
}

const isLabels = (clusters: readonly string[] | ArrayLike<number>): clusters is readonly string[] =>
  clusters.length > 0 && typeof clusters[0] === 'string';

/**
 * Mean of per-unit values with a percentile cluster-bootstrap interval: each resample draws as many
 * clusters as there are, with replacement, and takes the mean over every unit of the drawn clusters
 * (so units of one cluster, e.g. the audiences of one case, move together). Per-cluster sums and
 * counts are precomputed, so a resample costs O(clusters), not O(units). One cluster gives a
 * zero-width interval at the mean; no unit gives nulls. Clusters are given per unit, as labels (a case
 * id) or as dense indices from {@link clusterIndices}.
 */
export function clusterBootstrapMean(
  values: ArrayLike<number>,
  clusters: readonly string[] | ArrayLike<number>,
  options: ClusterBootstrapOptions,
): ClusterInterval {
  const n = values.length;
  if (clusters.length !== n)
    throw new ValidationError('values and clusters differ in length', { field: 'clusters' });
  const cluster = isLabels(clusters) ? clusterIndices(clusters).indices : clusters;
  if (n === 0) return { mean: null, ci_low: null, ci_high: null, n_units: 0, n_clusters: 0 };
  let k = 0;
  for (let i = 0; i < n; i += 1) k = Math.max(k, cluster[i]! + 1);
  const sums = new Float64Array(k);
  const counts = new Float64Array(k);
  let total = 0;
  for (let i = 0; i < n; i += 1) {
    const c = cluster[i]!;
    sums[c]! += values[i]!;
    counts[c]! += 1;
    total += values[i]!;
  }
  // Cluster ids without a unit would be drawn as empty clusters: compact them away.
  let used = 0;
  for (let c = 0; c < k; c += 1) {
    if (counts[c]! > 0) {
      sums[used] = sums[c]!;
      counts[used] = counts[c]!;
      used += 1;
    }
  }
  const mean = total / n;
  if (used === 1) return { mean, ci_low: mean, ci_high: mean, n_units: n, n_clusters: 1 };
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  const random = createSeededRandom(options.seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let sum = 0;
    let count = 0;
    for (let j = 0; j < used; j += 1) {
      const c = Math.floor(random() * used);
      sum += sums[c]!;
      count += counts[c]!;
    }
    means[r] = sum / count;
  }
  means.sort();
  const alpha = (1 - confidence) / 2;
  return {
    mean,
    ci_low: quantileSorted(means, alpha),
    ci_high: quantileSorted(means, 1 - alpha),
    n_units: n,
    n_clusters: used,
  };
}
