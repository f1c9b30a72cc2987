import { createSeededRandom } from '@xsb/core';
import { type DedupInput, deduplicateProbes, deduplicateProbesAllPairs } from '../src/deduplicate-probes';
import { makeSyntheticProbes } from '../src/testing';

// Spec target: a 20,000-probe union dedups in < 5 s. Each figure is the median of three runs.
const count = Number(process.env.BENCH_PROBES ?? 20_000);

function time(label: string, bank: readonly DedupInput[], dedup = deduplicateProbes): number {
  const runs: number[] = [];
  let kept = 0;
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    kept = dedup(bank).kept.length;
    runs.push(performance.now() - started);
  }
  const median = runs.sort((a, b) => a - b)[1]!;
  console.log(
    `${label}: ${bank.length} probes → ${kept} kept, ${bank.length - kept} duplicates in ${(median / 1000).toFixed(3)} s ` +
      `(${((median * 1000) / bank.length).toFixed(1)} µs/probe)`,
  );
  return median;
}

// About a third of the probes are near-copies of an earlier one (0–1 answer words, 0–1 question
// words, 0–3 evidence words changed), as k samples over overlapping chunks produce.
const realistic = makeSyntheticProbes(count, 42);
const elapsed = time('realistic union', realistic);
// Adversarial for answer blocking: every answer is one of 35 years, questions and evidence differ.
const random = createSeededRandom(7);
time(
  'answers from 35 years',
  makeSyntheticProbes(count, 3).map((probe) => ({
    ...probe,
    answer: String(1990 + Math.floor(random() * 35)),
  })),
);
time('all-pairs reference, first 2,000', realistic.slice(0, 2000), deduplicateProbesAllPairs);
time('blocked, first 2,000', realistic.slice(0, 2000));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
if (elapsed > 5000) {
  console.error('FAIL: the realistic union took longer than the 5 s target');
  process.exitCode = 1;
}
