import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isXsbError, readJson, writeJson } from '@xsb/core';
import { BENCH_RUN_FILES, type BenchLayout } from '../bench-layout';
import { type BenchRun, benchRunSchema } from '../schemas/bench-run';

/** `20260101T120000Z`: the UTC second, sortable, without characters a file system dislikes. */
export function utcStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * Creates a new, never used run folder `<UTC timestamp>-<short sha>[-<tag>]` (`nogit` outside a repository);
 * a second run in the same second gets `-2`, `-3`, …: `mkdir` without `recursive` fails on an
 * existing folder, so two processes can never share one.
 */
export async function createRunDir(
  layout: BenchLayout,
  sha: string | null,
  now: Date,
  tag?: string,
): Promise<{ runId: string; dir: string }> {
  await mkdir(layout.runsDir(), { recursive: true });
  // A shard's run carries its shard: shards started in the same second on different machines of a CI
  // matrix would otherwise make the same id, and `xsb merge` would find two different run folders at one path.
  const base = `${utcStamp(now)}-${sha ? sha.slice(0, 7) : 'nogit'}${tag ? `-${tag}` : ''}`;
  for (let attempt = 1; ; attempt += 1) {
    const runId = attempt === 1 ? base : `${base}-${attempt}`;
    const dir = layout.runDir(runId);
    try {
      await mkdir(dir);
      return { runId, dir };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

export async function writeRunRecord(layout: BenchLayout, run: BenchRun): Promise<BenchRun> {
  return writeJson(layout.runFile(run.run_id, 'run'), benchRunSchema, run);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Every `running` run of this host whose process is gone (a SIGKILL, a crash, a power cut) is marked
 * `failed` with reason `interrupted`, so no record stays `running` forever. Every `xsb bench` command
 * calls this first. Runs of other hosts are left alone: their pid means nothing here.
 */
export async function markInterruptedRuns(layout: BenchLayout): Promise<string[]> {
  if (!existsSync(layout.runsDir())) return [];
  const marked: string[] = [];
  const host = hostname();
  for (const entry of (await readdir(layout.runsDir(), { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    if (!entry.isDirectory()) continue;
    const file = `${layout.runsDir()}/${entry.name}/${BENCH_RUN_FILES.run}`;
    if (!existsSync(file)) continue;
    let run: BenchRun;
    try {
      run = await readJson(file, benchRunSchema);
    } catch (error) {
      if (isXsbError(error)) continue;
      throw error;
    }
    if (run.status !== 'running' || run.host !== host || processIsAlive(run.pid)) continue;
    await writeRunRecord(layout, {
      ...run,
      status: 'failed',
      reason: 'interrupted',
      finished_at: new Date().toISOString(),
    });
    marked.push(run.run_id);
  }
  return marked;
}
