import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanUpNow, createScratchDir, removeScratchDir, runTrackedProcess } from './process-cleanup';
import { makeTempDir } from './testing';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('process cleanup registry', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('xsb-cleanup-'));
  });
  afterEach(async () => {
    cleanUpNow();
    await cleanup();
  });

  it('kills a running program and the child it forked, and removes registered scratch folders', async () => {
    // Like LibreOffice: a launcher that forks the real worker and waits for it.
    const script = join(dir, 'launcher.sh');
    const pids = join(dir, 'pids');
    await writeFile(script, `#!/bin/sh\nsleep 60 &\necho "$$ $!" > "${pids}"\nwait\n`, { mode: 0o755 });
    const scratch = await createScratchDir('xsb-test-scratch-', dir);
    const run = runTrackedProcess(script, [], { label: 'launcher' });
    const [launcher, worker] = await waitFor(async () => {
      const text = (await readFile(pids, 'utf8')).trim();
      return text.includes(' ') ? text.split(' ').map(Number) : undefined;
    });
    expect(isAlive(launcher!) && isAlive(worker!)).toBe(true);

    const report = cleanUpNow();

    expect(report.processes).toEqual([`launcher (pid ${launcher})`]);
    expect(report.scratchDirs).toEqual([scratch]);
    expect(existsSync(scratch)).toBe(false);
    const result = await run;
    expect(result.signal).toBe('SIGKILL');
    await waitFor(async () => (isAlive(worker!) ? undefined : true));
    // Nothing is left registered: a second cleanup has nothing to do.
    expect(cleanUpNow()).toEqual({ processes: [], scratchDirs: [] });
  });

  it('forgets finished programs and removed folders, and kills leftovers of a finished launcher', async () => {
    const script = join(dir, 'quick.sh');
    const pidFile = join(dir, 'worker');
    await writeFile(script, `#!/bin/sh\nsleep 60 &\necho $! > "${pidFile}"\necho oops >&2\nexit 3\n`, {
      mode: 0o755,
    });
    const result = await runTrackedProcess(script, [], { label: 'quick' });
    expect(result).toMatchObject({ code: 3, timedOut: false, stderr: 'oops\n' });
    const worker = Number((await readFile(pidFile, 'utf8')).trim());
    await waitFor(async () => (isAlive(worker) ? undefined : true));
    const scratch = await createScratchDir('xsb-test-scratch-', dir);
    await removeScratchDir(scratch);
    expect(cleanUpNow()).toEqual({ processes: [], scratchDirs: [] });
  });

  it('kills the group on time-out', async () => {
    const result = await runTrackedProcess('sleep', ['30'], { label: 'sleep', timeoutMs: 100 });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });
});
