import { cp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@xsb/core/testing';

/** The repository root, for tests that run `apps/cli/src/main.ts` as a real process. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A path inside the repository's shared `fixtures/` folder. */
export function repoFixture(...parts: string[]): string {
  return join(REPO_ROOT, 'fixtures', ...parts);
}

/** Copies `fixtures/<name>` for each name to `<destination>/<name>`, so a test may change its copy. */
export async function copyRepoFixtures(names: string[], destination: string): Promise<void> {
  for (const name of names) await cp(repoFixture(name), join(destination, name), { recursive: true });
}

/** A temp folder whose `data/sources/` holds a copy of the shipped source cases, as `xsb sources` expects. */
export async function makeTempDirWithSources(prefix: string): ReturnType<typeof makeTempDir> {
  const temp = await makeTempDir(prefix);
  await copyRepoFixtures(['sources'], join(temp.dir, 'data'));
  return temp;
}

/**
 * An `xsb.config.json` whose batch client submits after 150 ms without a new request and polls every
 * 20–100 ms: batch runs against the fake provider finish in seconds (a real provider takes minutes).
 */
export const FAST_BATCH_CONFIG = JSON.stringify({
  batch: { idleMs: 150, pollIntervalMs: 20, maxPollIntervalMs: 100 },
});
