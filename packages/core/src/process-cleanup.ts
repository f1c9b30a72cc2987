import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a process is holding that must not outlive it: child process groups (LibreOffice forks
 * `soffice.bin` and keeps it running after its launcher dies) and scratch folders (a LibreOffice
 * profile, converted PDFs, rendered pages). Code that starts or creates one registers it here and
 * unregisters it when done; an app's signal handler calls {@link cleanUpNow} before it exits, so an
 * interrupted command leaves neither behind. Module state, since a signal reaches the whole process.
 */
const processGroups = new Map<number, string>();
const scratchFolders = new Set<string>();
let exitHookInstalled = false;

/** Whatever way the process ends (an error, `process.exit`), what is registered goes with it. */
function ensureExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => cleanUpNow());
}

/** Registers a child started with `detached: true` (so it leads its own group); returns the unregister. */
export function trackProcessGroup(pid: number, label: string): () => void {
  ensureExitHook();
  processGroups.set(pid, label);
  return () => {
    processGroups.delete(pid);
  };
}

/** A new folder `<parent>/<prefix>XXXXXX` (default parent: the system temp folder), registered. */
export async function createScratchDir(prefix: string, parent: string = tmpdir()): Promise<string> {
  ensureExitHook();
  const dir = await mkdtemp(join(parent, prefix));
  scratchFolders.add(dir);
  return dir;
}

/** Removes a folder made by {@link createScratchDir} and forgets it. */
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
  /** Scratch folders removed. */
  scratchDirs: string[];
}

/**
 * Kills every registered process group (SIGKILL: an interrupted conversion has nothing worth
 * saving, and LibreOffice takes ~20 s to react to SIGTERM) and then removes every registered scratch
 * folder. Synchronous, so it can run in a signal handler or an `exit` listener.
 */
export function cleanUpNow(): CleanupReport {
  const report: CleanupReport = { processes: [], scratchDirs: [] };
  for (const [pid, label] of processGroups) {
    if (killGroup(pid, 'SIGKILL')) report.processes.push(`${label} (pid ${pid})`);
  }
  processGroups.clear();
  for (const dir of scratchFolders) {
    try {
      rmSync(dir, { recursive: true, force: true });
      report.scratchDirs.push(dir);
    } catch {
      // Best effort: a folder that cannot be removed now is not worth failing the exit for.
    }
  }
  scratchFolders.clear();
  return report;
}

export interface TrackedRunOptions {
  /** Named in {@link CleanupReport} (e.g. `soffice`). */
  label: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kills the whole group after this long (ms). */
  timeoutMs?: number;
}

export interface TrackedRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The last 4,000 characters of stderr. */
  stderr: string;
}

/**
 * Runs a program in its own process group, registered for {@link cleanUpNow} while it runs. A time-out
 * or the program's own exit kills what is left of its group (a launcher's forked children); a failure
 * to start rejects. Stdout is ignored.
 */
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
