// node --test scripts/: the API report check fails on a changed public surface and only then.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApiReports, REGENERATE_COMMAND, staleReports } from './api-report.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const script = join(repo, 'scripts', 'api-report.mjs');
let root;

const write = (path, text) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const check = () => spawnSync(process.execPath, [script, '--root', root, '--check'], { encoding: 'utf8' });

before(() => {
  root = mkdtempSync(join(tmpdir(), 'api-report-'));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  write('package.json', '{"private": true}');
  write('packages/demo/package.json', '{"name": "@demo/pkg"}');
  write('packages/demo/src/index.ts', "export { area, type Shape, UNIT } from './shapes';\n");
  write(
    'packages/demo/src/shapes.ts',
    [
      '/** a shape */',
      'export interface Shape { kind: "square" | "circle"; size: number }',
      "export const UNIT = 'cm' as const;",
      'export function area(shape: Shape): number { return shape.size ** 2; }',
      'export function internal(): void {}',
      '',
    ].join('\n'),
  );
  for (const [path, text] of buildApiReports(root)) write(path, text);
});
after(() => rmSync(root, { recursive: true, force: true }));

test('the report lists each exported name with its declaration, sorted, and nothing internal', () => {
  const report = readFileSync(join(root, 'packages/demo/api-report.md'), 'utf8');
  const lines = report.split('\n').filter((line) => /^(const|function|interface) /.test(line));
  // Sorted by code point (capitals first); each declaration as its source writes it.
  assert.deepEqual(lines, [
    'interface Shape { kind: "square" | "circle"; size: number; }',
    "const UNIT: 'cm';",
    'function area(shape: Shape): number;',
  ]);
  assert.match(report, /3 exported names/);
});

test('a body change passes the check; a changed signature, a new export or a missing report fails it', () => {
  assert.equal(check().status, 0);
  write(
    'packages/demo/src/shapes.ts',
    readFileSync(join(root, 'packages/demo/src/shapes.ts'), 'utf8').replace('** 2', '* shape.size'),
  );
  assert.equal(check().status, 0);

  write(
    'packages/demo/src/shapes.ts',
    readFileSync(join(root, 'packages/demo/src/shapes.ts'), 'utf8').replace(
      '(shape: Shape)',
      '(shape: Shape, scale = 1)',
    ),
  );
  const failed = check();
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /packages\/demo\/api-report\.md/);
  assert.ok(failed.stderr.includes(`Run \`${REGENERATE_COMMAND}\``), failed.stderr);

  for (const [path, text] of buildApiReports(root)) write(path, text);
  assert.deepEqual(staleReports(root), []);
  write('packages/demo/src/index.ts', "export { area, internal, type Shape, UNIT } from './shapes';\n");
  assert.deepEqual(
    staleReports(root).map(([path]) => path),
    ['packages/demo/api-report.md'],
  );

  rmSync(join(root, 'packages/demo/api-report.md'));
  assert.equal(check().status, 1);
});
