/**
 * The bench's figure (the paired cluster bootstrap's timing is in @xsb/stats' bench). Run: pnpm --filter @xsb/bench bench
 * A 3-factor factorial (batch_size, weight_k, claims) over the demo data: judge calls equal to the
 * distinct work, against what a run per configuration would make.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runBench } from '../src/run/run-bench';
import { makeFastTempDir, prepareBenchData } from '../src/testing';

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
