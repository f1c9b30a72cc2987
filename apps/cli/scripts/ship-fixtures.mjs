// The @xsb/cli tarball ships the repository's fixtures/ as <package>/fixtures/: the demo's sources, decks and
// replay store, and every fixture the docs' examples name (src/shipped-fixtures.ts finds it from dist/).
//
//   node scripts/ship-fixtures.mjs            copy ../../fixtures to ./fixtures   (prepack)
//   node scripts/ship-fixtures.mjs --remove   delete ./fixtures                   (postpack: a checkout then
//                                             never reads a stale copy; it reads the repository's fixtures/)
//   node scripts/ship-fixtures.mjs --to DIR   copy into DIR, which must not exist (the shipped set, for tests)
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = dirname(dirname(fileURLToPath(import.meta.url)));
const repoFixtures = join(cli, '..', '..', 'fixtures');
const shipped = join(cli, 'fixtures');
const [flag, value] = process.argv.slice(2);

/** Everything under fixtures/ ships (792 KB): each folder is named by an example in the docs. */
function ship(to) {
  cpSync(repoFixtures, to, { recursive: true });
}

if (flag === '--remove') rmSync(shipped, { recursive: true, force: true });
else if (flag === '--to' && value) {
  const to = resolve(value);
  if (existsSync(to)) {
    console.error(`ERROR: ${to} exists: name a new folder`);
    process.exit(2);
  }
  ship(to);
} else if (flag === undefined) {
  rmSync(shipped, { recursive: true, force: true });
  ship(shipped);
} else {
  console.error('usage: node scripts/ship-fixtures.mjs [--remove | --to DIR]');
  process.exit(2);
}
