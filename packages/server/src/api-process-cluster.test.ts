import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { memberExit } from './api-process-cluster';

const fixture = fileURLToPath(new URL('../fixtures/crashing-cluster.ts', import.meta.url));

describe('serveApiProcesses with --processes 2', () => {
  it('replaces a member that dies, and stops the cluster when members crash more than 5 times a minute', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-api-crash-loop-');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', fixture, join(dir, 'data')], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+$/m);
      expect(stdout).toContain('stopped: API processes crashed 6 times within a minute; the cluster stops');
      expect(code).toBe(1);
      // Five replacements, each announced, before the sixth crash stops it.
      expect(stderr.match(/API process 1 \(pid \d+\) exited \(code 3\); starting another/g)).toHaveLength(5);
    } finally {
      await cleanup();
    }
  }, 90_000);
});

describe('memberExit', () => {
  const state = { stopping: false, starting: false, listened: true, recentRestarts: 1 };
  it('ignores exits while the cluster stops', () => {
    expect(memberExit({ ...state, stopping: true, starting: true, listened: false })).toBe('ignore');
  });
  it('fails the start when a member dies before it listened, while the cluster starts', () => {
    expect(memberExit({ ...state, starting: true, listened: false })).toBe('start-failed');
  });
  it('replaces a member that had listened, even while a sibling is still starting', () => {
    expect(memberExit({ ...state, starting: true })).toBe('replace');
    expect(memberExit({ ...state, recentRestarts: 5 })).toBe('replace');
  });
  it('stops on the sixth crash within a minute', () => {
    expect(memberExit({ ...state, recentRestarts: 6 })).toBe('crash-loop');
  });
});
