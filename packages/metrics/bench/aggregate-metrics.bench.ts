/**
 * Stage 7 hot path: grouping and bootstrapping many metric rows. Prints rows/s, ms per group-metric
 * bootstrap and peak RSS. Run: pnpm --filter @xsb/metrics bench
 */
import type { Metrics } from '@xsb/core';
import { createSeededRandom } from '@xsb/core';
import { bootstrapMeanInterval } from '@xsb/stats';
import { aggregateMetrics } from '../src/aggregate-metrics';
import type { MetricRow } from '../src/scan-metric-files';

const systems = 20;
const audiences = 3;
const cases = 500;
const random = createSeededRandom(42);
const rows: MetricRow[] = [];
for (let s = 0; s < systems; s += 1)
  for (let a = 0; a < audiences; a += 1)
    for (let c = 0; c < cases; c += 1) {
      const coverage = random();
      const metrics: Metrics = {
        audience: `aud${a}`,
        tau_a: 0.7,
        included_probe_count: 20,
        available_utility: 15,
        recovered_utility: 15 * coverage,
        coverage,
        efficiency_time: coverage * 3,
        efficiency_slide: coverage * 2,
        efficiency_word: coverage / 100,
        correctness: random(),
        safe_efficiency_time: coverage * 2,
      };
      rows.push({
        system_id: `sys${s}__audience_agnostic`,
        system: `sys${s}`,
        condition: 'audience_agnostic',
        audience: `aud${a}`,
        case_label: `case${c}`,
        origin: 'compact',
        file: `metrics/sys${s}/aud${a}/case${c}.json`,
        evaluationDir: null,
        metrics,
      });
    }

let peakRss = process.memoryUsage().rss;
const sample = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);

const started = performance.now();
const summary = await aggregateMetrics(rows, [], { seed: 1, resamples: 2000 });
const ms = performance.now() - started;
const groupMetrics = summary.groups.reduce((sum, group) => sum + group.metrics.length, 0);

const values = Array.from({ length: 1000 }, () => random());
const bootStart = performance.now();
for (let i = 0; i < 20; i += 1) bootstrapMeanInterval(values, { seed: i, resamples: 2000 });
const bootMs = (performance.now() - bootStart) / 20;
clearInterval(sample);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

console.log(
  `aggregateMetrics: ${rows.length} rows, ${summary.groups.length} groups, ${groupMetrics} group-metrics`,
);
console.log(
  `  total ${ms.toFixed(0)} ms, ${((rows.length / ms) * 1000).toFixed(0)} rows/s, ${(ms / groupMetrics).toFixed(2)} ms per group-metric (2000 resamples)`,
);
console.log(`bootstrapMeanInterval: n=1000, 2000 resamples: ${bootMs.toFixed(1)} ms`);
console.log(`peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
