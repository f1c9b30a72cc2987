import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { InputError } from './errors';

export const LOCK_DIR_NAME = '.xsb.lock';

export interface LockHolder {
  pid: number;
  host: string;
  acquired_at: string;
  token: string;
}

export interface AcquireLockOptions {
  timeoutMs?: number;
  /** A lock older than this is stale even if its holder cannot be checked (another host). */
  staleAfterMs?: number;
  pollMs?: number;
}

export interface DirectoryLock {
  readonly path: string;
  readonly holder: LockHolder;
  release(): Promise<void>;
}

/** Whether a process of this host with that pid exists (EPERM: it does, owned by another user). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | null> {
  try {
    return JSON.parse(await readFile(join(lockPath, 'holder.json'), 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

async function isStale(lockPath: string, holder: LockHolder | null, staleAfterMs: number): Promise<boolean> {
  if (holder && holder.host === hostname()) return !processIsAlive(holder.pid);
  try {
    const info = await stat(lockPath);
    // A lock folder without a holder file is one a crash left between mkdir and write: give it a moment.
    const limit = holder ? staleAfterMs : Math.min(staleAfterMs, 10_000);
    return Date.now() - info.mtimeMs > limit;
  } catch {
    return false;
  }
}

/** A lock folder (`mkdir` is atomic); a takeover checks the holder's token so only one process wins. */
export async function acquireDirectoryLock(
  dir: string,
  options: AcquireLockOptions = {},
): Promise<DirectoryLock> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const staleAfterMs = options.staleAfterMs ?? 3_600_000;
  const pollMs = options.pollMs ?? 50;
  const lockPath = join(dir, LOCK_DIR_NAME);
  await mkdir(dir, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    acquired_at: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };

  for (;;) {
    try {
      await mkdir(lockPath);
      await writeFile(join(lockPath, 'holder.json'), JSON.stringify(holder));
      return {
        path: lockPath,
        holder,
        async release() {
          const current = await readHolder(lockPath);
          if (current?.token === holder.token) await rm(lockPath, { recursive: true, force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readHolder(lockPath);
    if (await isStale(lockPath, current, staleAfterMs)) {
      const grave = `${lockPath}.stale-${randomBytes(4).toString('hex')}`;
      try {
        await rename(lockPath, grave);
        const moved = await readHolder(grave);
        // Someone replaced the stale lock before we moved it: give theirs back.
        if (current && moved?.token !== current.token) await rename(grave, lockPath).catch(() => undefined);
        else await rm(grave, { recursive: true, force: true });
      } catch {
        // Another process took it over first; loop and look again.
      }
      continue;
    }
    if (Date.now() >= deadline) {
      const who = current
        ? `pid ${current.pid} on ${current.host} since ${current.acquired_at}`
        : 'another process';
      throw new InputError(`is locked by ${who}; wait for it to finish or remove ${lockPath} if it is gone`, {
        file: dir,
        code: 'locked',
        retryable: true,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export async function withDirectoryLock<T>(
  dir: string,
  fn: () => Promise<T>,
  options: AcquireLockOptions = {},
): Promise<T> {
  const lock = await acquireDirectoryLock(dir, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
