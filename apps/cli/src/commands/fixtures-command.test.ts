import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { repoFixture } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-fixtures-cli-'));
});
afterAll(() => cleanup());

const run = (args: XsbArgs, cwd: string, env: Record<string, string> = {}) =>
  runXsb(args, { cwd, env: { PATH: process.env.PATH ?? '', ...env } });

/** Every file under `dir`, relative to it, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('xsb fixtures', () => {
  it('copies the fixtures xsb ships into ./fixtures of an empty folder', async () => {
    const cwd = join(root, 'empty');
    await mkdir(cwd);
    const result = await run('fixtures', cwd);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const copied = await filesUnder(join(cwd, 'fixtures'));
    expect(copied).toEqual(await filesUnder(repoFixture()));
    expect(result.stdout).toContain(`copied ${copied.length} files of xsb's fixtures`);
    expect(result.stdout).toContain(`run them from ${cwd}`);
    expect(await readFile(join(cwd, 'fixtures', 'replay', 'demo.jsonl'))).toEqual(
      await readFile(repoFixture('replay', 'demo.jsonl')),
    );
    expect((await readdir(cwd)).sort()).toEqual(['fixtures']);
  });

  it('refuses a non-empty --out (exit 2) and leaves it as it was; an empty folder is filled', async () => {
    const target = join(root, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'mine.txt'), 'keep me');
    const refused = await run(['fixtures', '--out', 'taken'], root);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`ERROR: --out ${target} already exists and is not empty`);
    expect(refused.stderr).not.toContain('    at ');
    expect(await filesUnder(target)).toEqual(['mine.txt']);

    await writeFile(join(root, 'a-file'), '');
    const onFile = await run(['fixtures', '--out', 'a-file'], root);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toContain('is a file');

    await mkdir(join(root, 'blank'));
    const filled = await run(['fixtures', '--out', 'blank'], root);
    expect(filled.code).toBe(0);
    expect(filled.stdout).toContain('copy to a folder named fixtures to run them as written');
    expect(await filesUnder(join(root, 'blank'))).toEqual(await filesUnder(repoFixture()));
    expect((await readdir(root)).filter((name) => name.includes('partial'))).toEqual([]);
  });
});

describe('commands that default to the fixtures read the located folder', () => {
  it('xsb plan demo plans the cases of XSB_FIXTURES_DIR, as --sources would', async () => {
    const fixtures = join(root, 'one-case');
    await cp(repoFixture('sources', 'cs_raft_consensus'), join(fixtures, 'sources', 'cs_raft_consensus'), {
      recursive: true,
    });
    const located = await run('plan demo --out d1 --json', root, { XSB_FIXTURES_DIR: fixtures });
    const named = await run(
      ['plan', 'demo', '--out', 'd2', '--json', '--sources', join(fixtures, 'sources')],
      root,
    );
    expect(located.code, located.stderr).toBe(0);
    expect(named.code, named.stderr).toBe(0);
    const rows = (stdout: string) => JSON.parse(stdout).rows;
    expect(rows(located.stdout)).toEqual(rows(named.stdout));
  });

  it('xsb demo reads XSB_FIXTURES_DIR: its sources, then its demo/notebooklm imports', async () => {
    const fixtures = join(root, 'wired');
    await mkdir(join(fixtures, 'sources', 'wired_case'), { recursive: true });
    await writeFile(join(fixtures, 'sources', 'wired_case', 'source.md'), '# A case only this test has\n');
    await writeFile(join(fixtures, 'sources', 'wired_case', 'source_metadata.json'), '{}\n');
    // No demo/notebooklm here: the demo stops at its import, naming the folder it was given.
    const result = await run('demo --out wired-demo', root, { XSB_FIXTURES_DIR: fixtures });
    expect(result.stderr).toContain(
      `${join(fixtures, 'demo', 'notebooklm')}: not a folder of exported decks`,
    );
    expect(await readdir(join(root, 'wired-demo', 'data', 'sources'))).toEqual(['wired_case']);
  });
});
