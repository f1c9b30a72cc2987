/**
 * The paired cluster bootstrap's timing: 10,000 rows in 1,000 clusters with 2,000 resamples (target < 2 s).
 * Run: pnpm --filter @xsb/stats bench
 */
import { createSeededRandom } from '@xsb/core/seeded-random';
import { clusterBootstrapMean, clusterIndices } from '../src/cluster-bootstrap';
import { pairedComparison } from '../src/paired-comparison';

const random = createSeededRandom(7);
const units = Array.from({ length: 10_000 }, (_, i) => {
  const a = random();
  return { cluster: `case${i % 1000}`, a, b: a + 0.05 + 0.1 * (random() - 0.5) };
});
// Warm up once, then time the median of 5.
pairedComparison(units, { seed: 1, resamples: 2000 });
const times: number[] = [];
for (let i = 0; i < 5; i += 1) {
  const started = performance.now();
  pairedComparison(units, { seed: i, resamples: 2000 });
  times.push(performance.now() - started);
}
times.sort((x, y) => x - y);
const diffs = Float64Array.from(units, (u) => u.b - u.a);
const { indices } = clusterIndices(units.map((u) => u.cluster));
const coreStarted = performance.now();
clusterBootstrapMean(diffs, indices, { seed: 3, resamples: 2000 });
const coreMs = performance.now() - coreStarted;
console.log(
  `paired cluster bootstrap, 10,000 rows in 1,000 clusters, 2,000 resamples: median ${times[2]!.toFixed(1)} ms ` +
    `(min ${times[0]!.toFixed(1)}, max ${times[4]!.toFixed(1)}; resampling alone ${coreMs.toFixed(1)} ms; target < 2000 ms)`,
);
