import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temp folder for one test, removed by the returned cleanup. */
export async function makeTempDir(
  prefix = 'xsb-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  // Retries ride out a file a just-stopped server or child process was still closing (ENOTEMPTY, EBUSY).
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
}
