import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// What must not outlive the process (LibreOffice forks `soffice.bin` and keeps it running after its
// launcher dies); module state, since a signal reaches the whole process.
const processGroups = new Map<number, string>();
const scratchFolders = new Set<string>();
let exitHookInstalled = false;

function ensureExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => cleanUpNow());
}

/** Registers a child started with `detached: true` (it leads its own group); returns the unregister. */
export function trackProcessGroup(pid: number, label: string): () => void {
  ensureExitHook();
  processGroups.set(pid, label);
  return () => {
    processGroups.delete(pid);
  };
}

/** A new registered folder `<parent>/<prefix>XXXXXX`. */
export async function createScratchDir(prefix: string, parent: string = tmpdir()): Promise<string> {
  ensureExitHook();
  const dir = await mkdtemp(join(parent, prefix));
  scratchFolders.add(dir);
  return dir;
}

export async function removeScratchDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  scratchFolders.delete(dir);
}

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

export interface CleanupReport {
  /** `label (pid N)` of each process group that was still running and is now killed. */
  processes: string[];
  scratchDirs: string[];
}

/** SIGKILL, as LibreOffice takes ~20 s to react to SIGTERM; synchronous, for signal and `exit` handlers. */
export function cleanUpNow(): CleanupReport {
  const report: CleanupReport = { processes: [], scratchDirs: [] };
  for (const [pid, label] of processGroups)
    if (killGroup(pid, 'SIGKILL')) report.processes.push(`${label} (pid ${pid})`);
  processGroups.clear();
  for (const dir of scratchFolders) {
    try {
      rmSync(dir, { recursive: true, force: true });
      report.scratchDirs.push(dir);
    } catch {} // best effort: not worth failing the exit for
  }
  scratchFolders.clear();
  return report;
}

export interface TrackedRunOptions {
  /** Named in {@link CleanupReport}. */
  label: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

export interface TrackedRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The last 4,000 characters of stderr. */
  stderr: string;
}

/** Runs a program in its own process group; its exit or a time-out kills what is left of the group. */
export function runTrackedProcess(
  program: string,
  args: readonly string[],
  options: TrackedRunOptions,
): Promise<TrackedRunResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(program, args, {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
    } catch (error) {
      reject(error);
      return;
    }
    const pid = child.pid;
    const untrack = pid === undefined ? () => {} : trackProcessGroup(pid, options.label);
    let stderr = '';
    let timedOut = false;
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            if (pid !== undefined) killGroup(pid, 'SIGKILL');
          }, options.timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      // Leftovers of the group would hold stderr open (and 'close' back) after the program exits.
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
    };
    child.once('error', (error) => {
      settle();
      untrack();
      reject(error);
    });
    child.once('exit', settle);
    child.once('close', (code, signal) => {
      settle();
      untrack();
      resolve({ code, signal, timedOut, stderr });
    });
  });
}
