import { deduplicateProbes } from '../src/deduplicate-probes';
import { makeSyntheticProbes } from '../src/testing';

// 20,000 synthetic probes with about a third near-duplicates (spec target: dedup in < 5 s).
const count = Number(process.env.BENCH_PROBES ?? 20_000);
const bank = makeSyntheticProbes(count, 42);
const started = performance.now();
const result = deduplicateProbes(bank);
const elapsed = performance.now() - started;
const peakRss = process.resourceUsage().maxRSS / 1024;
console.log(
  `deduplicateProbes: ${count} probes → ${result.kept.length} kept, ${result.dropped.length} duplicates ` +
    `in ${(elapsed / 1000).toFixed(3)} s (${((elapsed * 1000) / count).toFixed(1)} µs/probe), peak RSS ${peakRss.toFixed(0)} MB`,
);
if (elapsed > 5000) {
  console.error('FAIL: slower than the 5 s target');
  process.exitCode = 1;
}
