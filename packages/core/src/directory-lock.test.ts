import { execFile, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDirectoryLock, LOCK_DIR_NAME, withDirectoryLock } from './directory-lock';
import { makeTempDir } from './testing';

const run = promisify(execFile);
const lockModule = fileURLToPath(new URL('./directory-lock.ts', import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

describe('directory lock', () => {
  it('records the holder and refuses a second holder until released', async () => {
    const lock = await acquireDirectoryLock(dir);
    const holder = JSON.parse(await readFile(join(dir, LOCK_DIR_NAME, 'holder.json'), 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    await expect(acquireDirectoryLock(dir, { timeoutMs: 150 })).rejects.toThrow(
      `locked by pid ${process.pid}`,
    );
    await lock.release();
    const again = await acquireDirectoryLock(dir, { timeoutMs: 150 });
    await again.release();
  });

  it('takes over a lock whose holder died', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    await mkdir(join(dir, LOCK_DIR_NAME));
    await writeFile(
      join(dir, LOCK_DIR_NAME, 'holder.json'),
      JSON.stringify({ pid: dead, host: hostname(), acquired_at: '2020-01-01T00:00:00Z', token: 'old' }),
    );
    const lock = await acquireDirectoryLock(dir, { timeoutMs: 2000 });
    expect(lock.holder.pid).toBe(process.pid);
    await lock.release();
  });

  it('serializes writers in separate processes: no lost update', async () => {
    const counter = join(dir, 'counter.txt');
    await writeFile(counter, '0');
    const script = `
      import { withDirectoryLock } from ${JSON.stringify(lockModule)};
      import { readFile, writeFile } from 'node:fs/promises';
      for (let i = 0; i < 15; i++) {
        await withDirectoryLock(${JSON.stringify(dir)}, async () => {
          const n = Number(await readFile(${JSON.stringify(counter)}, 'utf8'));
          await new Promise((r) => setTimeout(r, 1));
          await writeFile(${JSON.stringify(counter)}, String(n + 1));
        }, { pollMs: 5 });
      }`;
    const child = () => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    await Promise.all([child(), child(), child()]);
    expect(await readFile(counter, 'utf8')).toBe('45');
  });

  it('releases the lock when the guarded work throws', async () => {
    await expect(
      withDirectoryLock(dir, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const lock = await acquireDirectoryLock(dir, { timeoutMs: 100 });
    await lock.release();
  });
});
