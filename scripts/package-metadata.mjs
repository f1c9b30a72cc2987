// Every published package carries the same release metadata, taken from the root package.json's
// `xsbRelease` block: license file, repository (with its folder), homepage, bugs, keywords, engines, the
// `./package.json` export, caret ranges (`workspace:^`) for its sibling packages, README links that work
// from the tarball (a relative link would point outside it: they become links to the repository), and a
// CHANGELOG.md in the tarball (Changesets appends each release to it; a new package gets its title line).
//
//   node scripts/package-metadata.mjs            writes it into every package   (pnpm package-metadata)
//   node scripts/package-metadata.mjs --check    fails, naming package and field, when one differs (CI)
//   node scripts/package-metadata.mjs --root <dir> [--check]   the same for another checkout (the script's test)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REGENERATE_COMMAND = 'pnpm package-metadata';
const FIELD_ORDER = [
  'name',
  'version',
  'description',
  'keywords',
  'homepage',
  'bugs',
  'repository',
  'license',
  'author',
  'type',
  'sideEffects',
  'engines',
  'files',
  'bin',
  'main',
  'types',
  'exports',
  'scripts',
  'dependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'optionalDependencies',
  'devDependencies',
];

/** The folders of the published packages (every folder under packages/ and apps/ with a package.json). */
export function packageFolders(root) {
  return ['packages', 'apps']
    .filter((group) => existsSync(join(root, group)))
    .flatMap((group) =>
      readdirSync(join(root, group))
        .sort()
        .map((name) => `${group}/${name}`),
    )
    .filter((dir) => existsSync(join(root, dir, 'package.json')));
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const ordered = (manifest) => {
  const known = FIELD_ORDER.filter((key) => key in manifest);
  const rest = Object.keys(manifest).filter((key) => !FIELD_ORDER.includes(key));
  return Object.fromEntries([...known, ...rest].map((key) => [key, manifest[key]]));
};

/** The manifest `dir` should have, given the root's release block. */
export function expectedManifest(manifest, dir, release) {
  const url = release.repository;
  const next = {
    ...manifest,
    keywords: [...new Set([...release.keywords, ...(manifest.keywords ?? [])])],
    homepage: `${url}/tree/main/${dir}#readme`,
    bugs: { url: `${url}/issues` },
    repository: { type: 'git', url: `git+${url}.git`, directory: dir },
    license: release.license,
    engines: { node: release.node },
    files: [...new Set([...(manifest.files ?? ['dist']), 'LICENSE', 'CHANGELOG.md'])],
    exports: { ...manifest.exports, './package.json': './package.json' },
  };
  for (const group of ['dependencies', 'devDependencies', 'peerDependencies']) {
    if (!next[group]) continue;
    next[group] = Object.fromEntries(
      Object.entries(next[group]).map(([name, range]) => [
        name,
        range.startsWith('workspace:') ? 'workspace:^' : range,
      ]),
    );
  }
  return ordered(next);
}

const RELATIVE_LINK = /\]\((?!https?:|mailto:|#)([^)\s]+)\)/g;

/** The README of package `dir` with every relative link made absolute (to the repository's main branch). */
export function absoluteReadmeLinks(text, dir, repository) {
  return text.replace(RELATIVE_LINK, (_, target) => {
    const [path, anchor] = target.split('#');
    const resolved = posix.normalize(posix.join(dir, path));
    return `](${repository}/blob/main/${resolved}${anchor === undefined ? '' : `#${anchor}`})`;
  });
}

/** `[dir, field]` pairs that differ from what they should be (a missing LICENSE copy too). */
export function staleFields(root) {
  const rootManifest = readJson(join(root, 'package.json'));
  const release = rootManifest.xsbRelease;
  const license = readFileSync(join(root, 'LICENSE'), 'utf8');
  const stale = [];
  for (const dir of packageFolders(root)) {
    const manifest = readJson(join(root, dir, 'package.json'));
    const expected = expectedManifest(manifest, dir, release);
    for (const key of new Set([...Object.keys(manifest), ...Object.keys(expected)]))
      if (JSON.stringify(manifest[key]) !== JSON.stringify(expected[key])) stale.push([dir, key]);
    if (JSON.stringify(Object.keys(manifest)) !== JSON.stringify(Object.keys(expected)))
      stale.push([dir, '(field order)']);
    const copy = join(root, dir, 'LICENSE');
    if (!existsSync(copy) || readFileSync(copy, 'utf8') !== license) stale.push([dir, 'LICENSE']);
    if (!existsSync(join(root, dir, 'CHANGELOG.md'))) stale.push([dir, 'CHANGELOG.md']);
    const readme = join(root, dir, 'README.md');
    if (!existsSync(readme)) stale.push([dir, 'README.md']);
    else if (new RegExp(RELATIVE_LINK.source).test(readFileSync(readme, 'utf8')))
      stale.push([dir, 'README.md links']);
  }
  return stale;
}

export function writeMetadata(root) {
  const release = readJson(join(root, 'package.json')).xsbRelease;
  const license = readFileSync(join(root, 'LICENSE'), 'utf8');
  for (const dir of packageFolders(root)) {
    const file = join(root, dir, 'package.json');
    writeFileSync(file, `${JSON.stringify(expectedManifest(readJson(file), dir, release), null, 2)}\n`);
    writeFileSync(join(root, dir, 'LICENSE'), license);
    const changelog = join(root, dir, 'CHANGELOG.md');
    if (!existsSync(changelog)) writeFileSync(changelog, `# ${readJson(file).name}\n`);
    const readme = join(root, dir, 'README.md');
    if (existsSync(readme))
      writeFileSync(readme, absoluteReadmeLinks(readFileSync(readme, 'utf8'), dir, release.repository));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? args[rootAt + 1] : join(fileURLToPath(import.meta.url), '..', '..');
  if (args.includes('--check')) {
    const stale = staleFields(root);
    if (stale.length) {
      for (const [dir, field] of stale)
        process.stderr.write(
          field === 'CHANGELOG.md'
            ? `${dir}/CHANGELOG.md: missing\n`
            : field.startsWith('README')
              ? `${dir}/README.md: ${field === 'README.md' ? 'missing' : 'holds a relative link, which breaks in the tarball'}\n`
              : `${dir}/package.json: "${field}" differs from the release metadata\n`,
        );
      process.stderr.write(`run \`${REGENERATE_COMMAND}\` and commit the result\n`);
      process.exit(1);
    }
    process.stdout.write(`package metadata: ${packageFolders(root).length} packages up to date\n`);
  } else writeMetadata(root);
}
