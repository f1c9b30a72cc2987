import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { isXsbError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCandidates, locateFixtures } from './shipped-fixtures';
import { REPO_ROOT } from './testing-fixtures';

const CLI_ROOT = join(REPO_ROOT, 'apps', 'cli');

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-shipped-fixtures-'));
});
afterAll(() => cleanup());

/** A folder that passes for fixtures: it has the demo's `sources/`. */
async function fakeFixtures(dir: string): Promise<string> {
  await mkdir(join(dir, 'sources'), { recursive: true });
  return dir;
}

/** A module URL inside `<packageRoot>/dist/` (tsup's chunks are flat there). */
const distModule = (packageRoot: string) => pathToFileURL(join(packageRoot, 'dist', 'chunk-ABC123.js')).href;

function thrownBy(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('locateFixtures', () => {
  it('finds the package’s own fixtures/ when installed, never node_modules/fixtures', async () => {
    const installed = join(root, 'project', 'node_modules', '@xsb', 'cli');
    const shipped = await fakeFixtures(join(installed, 'fixtures'));
    await fakeFixtures(join(root, 'project', 'node_modules', 'fixtures'));
    expect(locateFixtures({ env: {}, cwd: root }, distModule(installed))).toBe(shipped);
  });

  it('an installed package without fixtures/ is a config error naming where it looked', async () => {
    const installed = join(root, 'bare', 'node_modules', '@xsb', 'cli');
    await mkdir(join(installed, 'dist'), { recursive: true });
    // A stray node_modules/fixtures (any package of that name) is not taken for xsb's.
    await fakeFixtures(join(root, 'bare', 'node_modules', 'fixtures'));
    const error = thrownBy(() => locateFixtures({ env: {}, cwd: root }, distModule(installed)));
    expect(isXsbError(error) && error.kind).toBe('config');
    expect(error.message).toContain(join(installed, 'fixtures'));
    expect(error.message).not.toContain(join(root, 'bare', 'node_modules', 'fixtures'));
    expect(error.message).toContain('XSB_FIXTURES_DIR');
  });

  it('in a checkout (a pnpm-workspace.yaml two levels above the package) takes the repository’s fixtures/', async () => {
    const checkout = join(root, 'checkout');
    await mkdir(join(checkout, 'apps', 'cli', 'src'), { recursive: true });
    await writeFile(join(checkout, 'pnpm-workspace.yaml'), 'packages: [apps/*]\n');
    const repoFixtures = await fakeFixtures(join(checkout, 'fixtures'));
    const fromSource = pathToFileURL(join(checkout, 'apps', 'cli', 'src', 'shipped-fixtures.ts')).href;
    expect(locateFixtures({ env: {}, cwd: root }, fromSource)).toBe(repoFixtures);
    expect(locateFixtures({ env: {}, cwd: root }, distModule(join(checkout, 'apps', 'cli')))).toBe(
      repoFixtures,
    );
    // This checkout: the repository's fixtures/ is where this module looks after the package's own copy.
    const here = fixtureCandidates(fileURLToPath(new URL('./shipped-fixtures.ts', import.meta.url)));
    expect(here).toEqual([join(CLI_ROOT, 'fixtures'), join(REPO_ROOT, 'fixtures')]);
  });

  it('XSB_FIXTURES_DIR (relative to the working folder) names another folder; one without sources/ is refused', async () => {
    const other = await fakeFixtures(join(root, 'mine', 'fx'));
    expect(locateFixtures({ env: { XSB_FIXTURES_DIR: 'mine/fx' }, cwd: root })).toBe(other);
    const error = thrownBy(() => locateFixtures({ env: { XSB_FIXTURES_DIR: 'mine' }, cwd: root }));
    expect(isXsbError(error) && error.kind).toBe('config');
    expect(error.message).toContain(`${join(root, 'mine')} holds no fixtures`);
  });
});

/** The markdown files whose examples may name fixtures: the README, docs/ and every package README. */
async function documents(): Promise<string[]> {
  const docs = (await readdir(join(REPO_ROOT, 'docs'))).filter((name) => name.endsWith('.md'));
  const packages = await readdir(join(REPO_ROOT, 'packages'));
  return [
    'README.md',
    'apps/cli/README.md',
    ...docs.map((name) => `docs/${name}`),
    ...packages
      .map((name) => `packages/${name}/README.md`)
      .filter((file) => existsSync(join(REPO_ROOT, file))),
  ];
}

/** `fixtures/…` paths a text names, relative to the fixtures folder (a glob cut at its first `*`). */
function namedFixturePaths(text: string): string[] {
  const paths = [...text.matchAll(/(?<![\w-])fixtures\/([\w.\-/*]+)/g)].map((match) =>
    match[1]!.split('*')[0]!.replace(/[./]+$/, ''),
  );
  return [...new Set(paths.filter(Boolean))];
}

describe('what the @xsb/cli package ships', () => {
  it('holds every fixture the README, docs/ and package READMEs name (as prepack copies it)', async () => {
    const manifest = JSON.parse(await readFile(join(CLI_ROOT, 'package.json'), 'utf8'));
    expect(manifest.files).toContain('fixtures');
    expect(manifest.scripts.prepack).toBe('node scripts/ship-fixtures.mjs');
    const shipped = join(root, 'tarball', 'fixtures');
    await promisify(execFile)(process.execPath, ['scripts/ship-fixtures.mjs', '--to', shipped], {
      cwd: CLI_ROOT,
    });

    const missing: string[] = [];
    let named = 0;
    for (const file of await documents()) {
      for (const path of namedFixturePaths(await readFile(join(REPO_ROOT, file), 'utf8'))) {
        named += 1;
        if (!existsSync(join(shipped, path))) missing.push(`${file}: fixtures/${path}`);
      }
    }
    expect(missing).toEqual([]);
    expect(named).toBeGreaterThan(20);
    // The demo's own inputs: its sources, the imported decks and the replay store.
    for (const path of ['sources', 'demo/notebooklm', 'replay/demo.jsonl'])
      expect(existsSync(join(shipped, path)), path).toBe(true);
    // Installed as node_modules/@xsb/cli/{dist,fixtures}, the CLI finds that copy.
    expect(locateFixtures({ env: {}, cwd: root }, distModule(join(root, 'tarball')))).toBe(shipped);
  });

  it('names paths as the docs write them', () => {
    expect(
      namedFixturePaths(
        'see `fixtures/sources/*` and [x](../fixtures/run-sheets/baseline.csv), replay:fixtures/replay/demo.jsonl. Also fixtures/meta/rubric/.',
      ),
    ).toEqual(['sources', 'run-sheets/baseline.csv', 'replay/demo.jsonl', 'meta/rubric']);
  });
});
