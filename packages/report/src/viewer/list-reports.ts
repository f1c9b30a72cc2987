import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { BENCH_RUN_FILES, BenchLayout } from '@xsb/bench';
import { compareCodePoints, hashBytes, RunLayout } from '@xsb/core';
import { SUMMARY_FILES } from '@xsb/metrics';
import { findRubricSummaries } from '../rubric/read-rubric-report-data';

export type ReportKind = 'run' | 'bench' | 'rubric';

export interface ReportEntry {
  kind: ReportKind;
  /** Run name, bench run id, or the rubric folder relative to the data folder (`/`-separated). */
  name: string;
  href: string;
  /** Their digest is the report's cache key. */
  files: string[];
}

async function subfolders(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort(compareCodePoints);
}

const hrefOf = (kind: ReportKind, name: string) =>
  `/${kind}/${name.split('/').map(encodeURIComponent).join('/')}`;

export async function listReports(dataDir: string): Promise<ReportEntry[]> {
  const entries: ReportEntry[] = [];
  const layout = new RunLayout(dataDir);
  for (const run of await subfolders(join(dataDir, 'runs'))) {
    const summary = join(layout.summaryDir(run), SUMMARY_FILES.json);
    if (existsSync(summary))
      entries.push({ kind: 'run', name: run, href: hrefOf('run', run), files: [summary] });
  }
  const bench = new BenchLayout(dataDir);
  for (const id of await subfolders(bench.runsDir())) {
    const files = [bench.runFile(id, 'run'), bench.runFile(id, 'summary')];
    if (files.every((file) => existsSync(file)))
      entries.push({
        kind: 'bench',
        name: id,
        href: hrefOf('bench', id),
        files: [...files, join(bench.runDir(id), BENCH_RUN_FILES.rows)],
      });
  }
  const byFolder = new Map<string, string[]>();
  for (const file of await findRubricSummaries(dataDir, 6)) {
    const folder = relative(dataDir, dirname(file)).split(sep).join('/') || '.';
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), file]);
  }
  for (const [folder, files] of [...byFolder].sort(([a], [b]) => compareCodePoints(a, b)))
    entries.push({ kind: 'rubric', name: folder, href: hrefOf('rubric', folder), files });
  return entries;
}

export async function entryDigest(entry: ReportEntry): Promise<string> {
  const parts: string[] = [];
  for (const file of entry.files)
    parts.push(file, existsSync(file) ? hashBytes(await readFile(file)) : 'missing');
  return hashBytes(parts.join('\n'));
}
