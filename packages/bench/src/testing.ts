import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDemo } from '@xsb/eval';
import { BenchLayout } from './bench-layout';
import { discoverBenchCases } from './splits/bench-cases';
import { splitCases } from './splits/bench-splits';

/**
 * A temp folder on tmpfs (`/dev/shm`) when there is one, else the system temp folder: bench tests
 * run hundreds of evaluation jobs, each with several fsynced atomic writes, and a shared disk makes
 * that the slowest part of the suite. Removed by the returned cleanup.
 */
export async function makeFastTempDir(
  prefix = 'xsb-bench-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dir = await mkdtemp(join(base, prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A data folder ready for `runBench`: the demo pipeline (stages 1–7; offline unless `judge` says
 * otherwise) on the given source cases (default: the demo's three) in `<outDir>/data`, then a stored
 * split with `testShare` (default 0: every case in dev).
 */
export async function prepareBenchData(
  outDir: string,
  options: { sourcesDir?: string; testShare?: number; judge?: string } = {},
): Promise<string> {
  const { dataDir } = await runDemo({
    outDir,
    ...(options.sourcesDir ? { sourcesDir: options.sourcesDir } : {}),
    ...(options.judge ? { judge: options.judge } : {}),
  });
  const { cases } = await discoverBenchCases(dataDir);
  await splitCases(new BenchLayout(dataDir), cases, { testShare: options.testShare ?? 0 });
  return dataDir;
}
