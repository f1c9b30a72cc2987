import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 22: the statistics and the metrics import without any npm package: no model SDK, deck reader, PDF or
// HTML library, search index, image library or browser, and not even zod. Each case runs one fresh node process
// (about 1 s): the workspace sources through tsx, as `pnpm xsb` runs them, with a resolve hook that logs every module it resolves.
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
let dir: string;

// Written synchronously before the resolution returns, so the log is complete when the import is.
const HOOK = `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(log, result.url + '\\n');
  return result;
}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'xsb-light-import-'));
  await writeFile(join(dir, 'hook.mjs'), HOOK);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every module URL resolved while a fresh process imports `specifier`. */
async function modulesLoadedBy(specifier: string): Promise<string[]> {
  const log = join(dir, `${specifier.replace(/\W/g, '_')}.log`);
  const register = join(dir, `register-${specifier.replace(/\W/g, '_')}.mjs`);
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });\n`,
  );
  await writeFile(log, '');
  await run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      register,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(specifier)});`,
    ],
    { cwd: packageDir },
  );
  return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
}

/** The npm packages among module URLs (what follows the last `node_modules/`). */
function npmPackages(urls: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
    names.add(first!.startsWith('@') ? `${first}/${second}` : first!);
  }
  return names;
}

describe('light imports', () => {
  it('@xsb/stats loads no npm package at all, and of @xsb/core only its errors and seeded random', async () => {
    const urls = await modulesLoadedBy('@xsb/stats');
    expect(urls.some((url) => url.endsWith('/packages/stats/src/index.ts'))).toBe(true);
    expect([...npmPackages(urls)]).toEqual([]);
    const core = new Set(
      urls.filter((url) => url.includes('/packages/core/')).map((url) => url.split('/').pop()),
    );
    expect([...core].sort()).toEqual(['errors.ts', 'seeded-random.ts']);
  });

  it('@xsb/metrics loads no npm package at import (no zod, no yaml), and of @xsb/core only its basics', async () => {
    const urls = await modulesLoadedBy('@xsb/metrics');
    expect(urls.some((url) => url.endsWith('/packages/metrics/src/index.ts'))).toBe(true);
    // zod alone takes ~100 ms to load here: the schemas come with the first function that reads a file.
    expect([...npmPackages(urls)]).toEqual([]);
    const core = urls.filter((url) => url.includes('/packages/core/src/'));
    expect(core.some((url) => url.endsWith('/basics.ts'))).toBe(true);
    expect(core.filter((url) => url.endsWith('/index.ts') || url.includes('/schemas/'))).toEqual([]);
  });
});
