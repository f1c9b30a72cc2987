import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readJson, readJsonlAll, UsageError, writeFileAtomic } from '@xsb/core';
import { BENCH_RUN_FILES, BenchLayout } from '../bench-layout';
import { summarizeBenchRun } from '../compare/summarize-run';
import { renderBenchReport } from '../report/render-report';
import { type BenchRow, benchRowSchema } from '../schemas/bench-row';
import { type BenchRun, benchRunSchema } from '../schemas/bench-run';
import { type BenchComparison, type BenchSummary, benchSummarySchema } from '../schemas/bench-summary';

/** The data folder a bench run folder `<data>/bench/runs/<id>/` belongs to. */
export function benchLayoutOfRunDir(dir: string): BenchLayout {
  return new BenchLayout(resolve(dir, '..', '..', '..'));
}

function requireRunFile(dir: string, file: keyof typeof BENCH_RUN_FILES): string {
  const path = join(dir, BENCH_RUN_FILES[file]);
  if (!existsSync(path))
    throw new UsageError(`${path} does not exist: is ${dir} a bench run folder?`, { code: 'missing_file' });
  return path;
}

/** A recorded run: its run.json and rows (and summary.json once the run is done). */
export async function readBenchRun(
  dir: string,
): Promise<{ run: BenchRun; rows: BenchRow[]; summary: BenchSummary | null }> {
  const run = await readJson(requireRunFile(dir, 'run'), benchRunSchema);
  const rows = await readJsonlAll(requireRunFile(dir, 'rows'), benchRowSchema);
  const summaryFile = join(dir, BENCH_RUN_FILES.summary);
  const summary = existsSync(summaryFile) ? await readJson(summaryFile, benchSummarySchema) : null;
  return { run, rows, summary };
}

/** `xsb bench report DIR`: report.md again from summary.json + run.json (byte-identical to the run's). */
export async function rerenderBenchReport(dir: string): Promise<{ file: string; report: string }> {
  const run = await readJson(requireRunFile(dir, 'run'), benchRunSchema);
  const summary = await readJson(requireRunFile(dir, 'summary'), benchSummarySchema);
  const report = renderBenchReport(summary, run);
  const file = join(dir, BENCH_RUN_FILES.report);
  await writeFileAtomic(file, report);
  return { file, report };
}

/**
 * `xsb bench compare --run DIR`: the comparisons recomputed from per_row.jsonl and run.json alone,
 * with another reference system if asked (equal to the stored summary's with the run's reference).
 */
export async function compareBenchRun(
  dir: string,
  options: { reference?: string } = {},
): Promise<{ run: BenchRun; comparisons: BenchComparison[] }> {
  const { run, rows } = await readBenchRun(dir);
  if (options.reference !== undefined && !run.systems.includes(options.reference))
    throw new UsageError(
      `reference system ${options.reference} is not a system of this run (${run.systems.join(', ')})`,
    );
  const summary = summarizeBenchRun(
    rows,
    run,
    options.reference === undefined ? {} : { reference: options.reference },
  );
  return { run, comparisons: summary.comparisons };
}
