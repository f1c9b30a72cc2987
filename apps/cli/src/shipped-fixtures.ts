import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@xsb/core';

/** Names another fixtures folder (a checkout's, an edited copy) instead of the one shipped with the CLI. */
export const FIXTURES_DIR_VARIABLE = 'XSB_FIXTURES_DIR';

/**
 * The folders that may hold xsb's fixtures, given a module of this package: its code sits one level below
 * the package root (src/ in a checkout, dist/ when built or installed). First the package's own
 * `fixtures/` (the tarball's copy, apps/cli/scripts/ship-fixtures.mjs), then — only inside an xsb checkout,
 * recognised by its pnpm-workspace.yaml — the repository's. An installed package never falls back to the
 * folder two levels up: that is `node_modules/`, where a `fixtures` package may well exist.
 */
export function fixtureCandidates(moduleFile: string): string[] {
  const packageRoot = resolve(dirname(moduleFile), '..');
  const repoRoot = resolve(packageRoot, '..', '..');
  const candidates = [join(packageRoot, 'fixtures')];
  if (existsSync(join(repoRoot, 'pnpm-workspace.yaml'))) candidates.push(join(repoRoot, 'fixtures'));
  return candidates;
}

/** A fixtures folder is one with the demo's source cases. */
const holdsFixtures = (dir: string): boolean => existsSync(join(dir, 'sources'));

/**
 * The fixtures folder every command that defaults to fixtures reads (`xsb demo`, `xsb plan demo`,
 * `xsb fixtures`): `XSB_FIXTURES_DIR` when set (relative to `cwd`), else the first of fixtureCandidates.
 * None found: a ConfigError naming where it looked (exit 2).
 */
export function locateFixtures(
  io: { env: NodeJS.ProcessEnv; cwd: string },
  moduleUrl: string = import.meta.url,
): string {
  const named = io.env[FIXTURES_DIR_VARIABLE];
  if (named) {
    const dir = resolve(io.cwd, named);
    if (!holdsFixtures(dir))
      throw new ConfigError(
        `${FIXTURES_DIR_VARIABLE}=${named}: ${dir} holds no fixtures (no sources/ folder)`,
        {
          code: 'missing_folder',
        },
      );
    return dir;
  }
  const candidates = fixtureCandidates(fileURLToPath(moduleUrl));
  const found = candidates.find(holdsFixtures);
  if (found === undefined)
    throw new ConfigError(
      `xsb's fixtures not found (looked in ${candidates.join(', ')}): reinstall @xsb/cli, whose package ships ` +
        `fixtures/, or set ${FIXTURES_DIR_VARIABLE} to a fixtures folder`,
      { code: 'missing_folder' },
    );
  return found;
}
