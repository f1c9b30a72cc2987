// node --test scripts/: what a package's build holds. Test-only tools stay outside the tarball: @xsb/report's
// testing entry loads playwright-core, an optional peer, at run time instead of bundling it (7.6 MB).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const report = join(repo, 'packages', 'report');

test('@xsb/report keeps playwright-core an optional peer and out of its build', () => {
  const manifest = JSON.parse(readFileSync(join(report, 'package.json'), 'utf8'));
  assert.ok(manifest.peerDependencies?.['playwright-core'], 'playwright-core is a peer dependency');
  assert.equal(manifest.peerDependenciesMeta?.['playwright-core']?.optional, true);
  assert.equal(manifest.dependencies?.['playwright-core'], undefined);

  const out = mkdtempSync(join(tmpdir(), 'report-build-'));
  try {
    const tsup = join(repo, 'node_modules', '.bin', 'tsup');
    const built = spawnSync(tsup, ['--no-dts', '--out-dir', out], { cwd: report, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const files = readdirSync(out);
    assert.deepEqual(
      files.filter((file) => /playwright/i.test(file)),
      [],
      'no playwright chunk in the build',
    );
    const testing = readFileSync(join(out, 'testing.js'), 'utf8');
    assert.match(testing, /import\("playwright-core"\)/, 'loaded at run time');
    for (const file of files.filter((name) => name.endsWith('.js')))
      assert.ok(readFileSync(join(out, file)).length < 1_000_000, `${file} stays small`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
