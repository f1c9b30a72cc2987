// node --test scripts/doc-examples.test.mjs: every TypeScript block of the READMEs and docs/ compiles in a
// strict consumer project against the built packages (as npm installs them: exports → dist/*.d.ts), under
// node16 and bundler resolution, without skipLibCheck or the DOM lib; every block not marked `ts no-run` runs,
// from a folder holding the shipped fixtures (what `xsb fixtures` gives an installed user).
// Needs the packages built: `pnpm build` (CI builds them for the release test first).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(repo, 'node_modules', '.bin', name);

/** The markdown files whose code users copy. */
function docFiles() {
  const inDir = (dir) =>
    existsSync(join(repo, dir))
      ? readdirSync(join(repo, dir))
          .filter((name) => name.endsWith('.md'))
          .map((name) => join(dir, name))
      : [];
  const packageReadmes = ['packages', 'apps'].flatMap((root) =>
    readdirSync(join(repo, root))
      .map((name) => join(root, name, 'README.md'))
      .filter((file) => existsSync(join(repo, file))),
  );
  return ['README.md', ...inDir('docs'), ...packageReadmes];
}

/** ```ts / ```typescript blocks with their file and line; `no-run` after the language keeps a block compile-only. */
function extractBlocks(file, text) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)(\s.*)?$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith('```')) end++;
    blocks.push({
      file,
      line: start,
      code: lines.slice(start, end).join('\n'),
      run: !/\bno-run\b/.test(open[2] ?? ''),
    });
    i = end;
  }
  return blocks;
}

const blocks = docFiles().flatMap((file) => extractBlocks(file, readFileSync(join(repo, file), 'utf8')));
const project = mkdtempSync(join(tmpdir(), 'xsb-doc-examples-'));
after(() => rmSync(project, { recursive: true, force: true }));

/** A consumer project: @xsb/* linked to the package folders (their exports name the built dist). */
function writeProject() {
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '@xsb'), { recursive: true });
  mkdirSync(join(modules, '@types'), { recursive: true });
  for (const root of ['packages', 'apps'])
    for (const name of readdirSync(join(repo, root))) {
      const manifest = join(repo, root, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const packageName = JSON.parse(readFileSync(manifest, 'utf8')).name;
      symlinkSync(join(repo, root, name), join(modules, packageName));
    }
  symlinkSync(join(repo, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'));
  // What a user installs beside xsb when an example uses it.
  symlinkSync(join(repo, 'packages', 'core', 'node_modules', 'zod'), join(modules, 'zod'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const names = blocks.map((block, index) => {
    const name = `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.ts`;
    // Each block is a module of its own: top-level await and names do not leak between blocks.
    writeFileSync(join(project, name), `${block.code}\nexport {};\n`);
    blocks[index].module = name;
    return name;
  });
  const base = {
    strict: true,
    noEmit: true,
    target: 'es2022',
    lib: ['es2023'],
    types: ['node'],
    skipLibCheck: false,
  };
  for (const [label, options] of [
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])
    writeFileSync(
      join(project, `tsconfig.${label}.json`),
      JSON.stringify({ compilerOptions: { ...base, ...options }, files: names }, null, 2),
    );
}

writeProject();

test('the docs hold TypeScript examples, and the packages are built', () => {
  assert.ok(blocks.length >= 10, `found ${blocks.length} blocks`);
  for (const dir of ['core', 'eval', 'metrics'])
    assert.ok(
      existsSync(join(repo, 'packages', dir, 'dist', 'index.d.ts')),
      `packages/${dir} is built (pnpm build)`,
    );
});

for (const resolution of ['node16', 'bundler'])
  test(`every example compiles strictly (${resolution} resolution, no skipLibCheck, no DOM lib)`, () => {
    const result = spawnSync(bin('tsc'), ['-p', `tsconfig.${resolution}.json`], {
      cwd: project,
      encoding: 'utf8',
    });
    const located = result.stdout.replace(/^([\w.-]+\.ts)\((\d+),/gm, (_, module, line) => {
      const block = blocks.find((candidate) => candidate.module === module);
      return block
        ? `${block.file}:${block.line + Number(line) - 1} (${module}:${line}),`
        : `${module}(${line},`;
    });
    assert.equal(result.status, 0, located || result.stderr);
  });

test('every runnable example runs on the shipped fixtures', () => {
  const work = join(project, 'work');
  mkdirSync(work);
  // A copy: the examples write into their data folder (source contexts, probe banks, weights).
  cpSync(join(repo, 'fixtures'), join(work, 'fixtures'), { recursive: true });
  const failures = [];
  for (const block of blocks.filter((candidate) => candidate.run)) {
    const result = spawnSync(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), join(project, block.module)],
      {
        cwd: work,
        encoding: 'utf8',
        env: { ...process.env, NODE_PATH: '' },
        timeout: 120_000,
      },
    );
    if (result.status !== 0)
      failures.push(`${block.file}:${block.line} exited ${result.status}\n${result.stderr.slice(-1500)}`);
  }
  assert.deepEqual(failures, [], failures.join('\n\n'));
});
