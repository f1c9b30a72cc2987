import { execFileSync } from 'node:child_process';
import type { BenchGitState } from '../schemas/bench-test-ledger';

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/**
 * The commit the code under test sits on: `git rev-parse HEAD` in the first of `dirs` that is inside
 * a git repository (the data folder's, then the working folder's). Dirty means tracked files differ
 * from HEAD (`git status --porcelain --untracked-files=no`): the bench's own new records in a data
 * folder inside the repository do not make it dirty. Outside any repository: `{sha: null, dirty: null}`.
 */
export function readGitState(dirs: readonly string[]): BenchGitState {
  for (const dir of dirs) {
    const sha = git(dir, ['rev-parse', 'HEAD']);
    if (sha === null || !/^[0-9a-f]{40}$/.test(sha)) continue;
    const status = git(dir, ['status', '--porcelain', '--untracked-files=no']);
    return { sha, dirty: status === null ? null : status.length > 0 };
  }
  return { sha: null, dirty: null };
}
