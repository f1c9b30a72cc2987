/**
 * The bench's figures. Run: pnpm --filter @xsb/bench bench
 * 1. Paired cluster bootstrap over 10,000 rows in 1,000 clusters with 2,000 resamples (target < 2 s).
 * 2. A 3-factor factorial (batch_size, weight_k, claims) over the demo data: judge calls equal to the
 *    distinct work, against what a run per configuration would make.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createSeededRandom } from '@xsb/core';
import { runBench } from '../src/run/run-bench';
import { clusterBootstrapMean, clusterIndices } from '../src/stats/cluster-bootstrap';
import { pairedComparison } from '../src/stats/paired-comparison';
import { makeFastTempDir, prepareBenchData } from '../src/testing';

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

const { dir, cleanup } = await makeFastTempDir('xsb-bench-bench-');
try {
  const dataDir = await prepareBenchData(join(dir, 'demo'));
  // Fresh evaluations, so every call the factorial needs is made by it.
  for (const part of ['evaluations', 'correctness_cache', 'metrics', 'usage_ledger.jsonl'])
    await rm(join(dataDir, 'runs', 'demo', part), { recursive: true, force: true });
  const started = performance.now();
  const result = await runBench({
    dataDir,
    pipelineRun: 'demo',
    configs: 'factorial',
    factors: ['batch_size', 'weight_k', 'claims'],
  });
  const seconds = (performance.now() - started) / 1000;
  const calls = result.run.judge_calls!;
  console.log(
    `3-factor factorial over the demo data (8 configurations, ${result.rows.length} rows, lexical judge): ` +
      `judge calls ${calls.measured} (distinct work ${calls.distinct}; a naive run per configuration would make ${calls.naive}; ` +
      `${(calls.naive / Math.max(calls.measured, 1)).toFixed(1)}x fewer) in ${seconds.toFixed(1)} s`,
  );
  if (calls.measured !== calls.distinct) {
    console.error('the factorial made more calls than its distinct work');
    process.exitCode = 1;
  }
} finally {
  await cleanup();
}
