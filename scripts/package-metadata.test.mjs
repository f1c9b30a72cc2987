// node --test scripts/: the release metadata check fails on a package that differs, names it, and passes once written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const script = join(dirname(fileURLToPath(import.meta.url)), 'package-metadata.mjs');
let root;
const write = (path, value) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
};
const run = (...args) => spawnSync(process.execPath, [script, '--root', root, ...args], { encoding: 'utf8' });

before(() => {
  root = mkdtempSync(join(tmpdir(), 'package-metadata-'));
  write('LICENSE', 'MIT License\n');
  write('package.json', {
    private: true,
    xsbRelease: { repository: 'https://example.org/xsb', license: 'MIT', node: '>=20.11', keywords: ['xsb'] },
  });
  write('packages/demo/package.json', {
    name: '@xsb/demo',
    version: '0.1.0',
    type: 'module',
    files: ['dist'],
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    dependencies: { '@xsb/core': 'workspace:*', zod: '4.6.7' },
  });
  write(
    'packages/demo/README.md',
    '# demo\n\nSee [formats](../../docs/formats.md#deck), [here](#api), [the site](https://example.org/x) and [src](src/a.ts).\n',
  );
  write('packages/bare/package.json', { name: '@xsb/bare', version: '0.1.0' });
});
after(() => rmSync(root, { recursive: true, force: true }));

test('a package without the release metadata fails the check, naming package and field', () => {
  const result = run('--check');
  assert.equal(result.status, 1);
  for (const field of ['repository', 'homepage', 'bugs', 'engines', 'exports', 'dependencies', 'LICENSE'])
    assert.match(result.stderr, new RegExp(`packages/demo/package.json: "${field}"`));
  assert.match(
    result.stderr,
    /packages\/demo\/README.md: holds a relative link, which breaks in the tarball/,
  );
  assert.match(result.stderr, /packages\/bare\/README.md: missing/);
  assert.match(result.stderr, /packages\/demo\/CHANGELOG.md: missing/);
  assert.match(result.stderr, /pnpm package-metadata/);
});

test('written, the package carries the metadata, caret sibling ranges and the license, and the check passes', () => {
  assert.equal(run().status, 0);
  const manifest = JSON.parse(readFileSync(join(root, 'packages/demo/package.json'), 'utf8'));
  assert.deepEqual(manifest.repository, {
    type: 'git',
    url: 'git+https://example.org/xsb.git',
    directory: 'packages/demo',
  });
  assert.equal(manifest.homepage, 'https://example.org/xsb/tree/main/packages/demo#readme');
  assert.equal(manifest.exports['./package.json'], './package.json');
  assert.deepEqual(Object.keys(manifest.exports['.']), ['types', 'import']);
  assert.deepEqual(manifest.dependencies, { '@xsb/core': 'workspace:^', zod: '4.6.7' });
  assert.deepEqual(manifest.engines, { node: '>=20.11' });
  // The changelog ships in the tarball; a package without one gets its title line for Changesets to fill.
  assert.deepEqual(manifest.files, ['dist', 'LICENSE', 'CHANGELOG.md']);
  assert.equal(readFileSync(join(root, 'packages/demo/CHANGELOG.md'), 'utf8'), '# @xsb/demo\n');
  assert.equal(readFileSync(join(root, 'packages/demo/LICENSE'), 'utf8'), 'MIT License\n');
  // Relative links would leave the tarball: they point to the repository; anchors and URLs stay.
  assert.equal(
    readFileSync(join(root, 'packages/demo/README.md'), 'utf8'),
    '# demo\n\nSee [formats](https://example.org/xsb/blob/main/docs/formats.md#deck), [here](#api), [the site](https://example.org/x) and [src](https://example.org/xsb/blob/main/packages/demo/src/a.ts).\n',
  );
  write('packages/bare/README.md', '# bare\n');
  const check = run('--check');
  assert.equal(check.status, 0, check.stderr);
});
