import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './testing-fixtures';

export interface XsbProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in stdout + stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/**
 * Runs `xsb args` as a real process (node + tsx on the sources, from the repository root so tsx
 * resolves), as a user or a supervisor would; HOME and the cache are in `home`, paths in `args` absolute.
 */
export function spawnXsb(args: string[], options: { home: string; env: Record<string, string> }): XsbProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'apps/cli/src/main.ts'), ...args],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        XDG_CACHE_HOME: join(options.home, 'cache'),
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    text += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (!match) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern} in:\n${text}`));
        }, timeoutMs);
        const onExit = () => {
          check();
          cleanup();
          reject(new Error(`the process exited before ${pattern} appeared:\n${text}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
  };
}

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
