// What an outside developer writes after `npm install @xsb/metrics`: a strict TypeScript program, checked
// with node16 and with bundler resolution, no skipLibCheck, no DOM lib (scripts/release.test.mjs).
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The consumer calls computeMetrics on two probes, one covered: coverage 1 / (1 + 0.8). */
export const CONSUMER_SOURCE = `import { computeMetrics } from '@xsb/metrics';

const audience = 'executives';
const probe = (probe_id: string, question: string) => ({
  probe_id,
  source_case_id: 'case_1',
  scene: 'results',
  question,
  answer: 'Revenue grew 12%.',
  evidence: [{ locator: 'p. 1', text: 'Revenue grew 12% in 2025.' }],
  level: 1,
  modality: 'text',
  theme: 'finance',
  metadata: {},
});
const metrics = computeMetrics({
  audience,
  probes: [probe('p1', 'How much did revenue grow?'), probe('p2', 'In which year?')],
  weights: [
    { probe_id: 'p1', audience, utility_weight: 1, reason: 'the headline', metadata: {} },
    { probe_id: 'p2', audience, utility_weight: 0.8, reason: 'context', metadata: {} },
  ],
  scores: [
    { probe_id: 'p1', covered: true, answer: '12%', cited_evidence: 'slide 2', metadata: {} },
    { probe_id: 'p2', covered: false, answer: '', cited_evidence: '', metadata: {} },
  ],
  slideCount: 4,
  visibleWordCount: 130,
  correctness: 1,
});
const coverage: number | null = metrics.coverage;
const included: number = metrics.included_probe_count;
console.log(JSON.stringify({ coverage, included }));
`;

const STRICT = {
  strict: true,
  target: 'es2022',
  lib: ['es2022'],
  types: ['node'],
  skipLibCheck: false,
  noEmit: true,
};

/** Writes consumer.ts and one tsconfig per resolution; returns the tsconfig file names. */
export function writeConsumer(dir) {
  writeFileSync(join(dir, 'consumer.ts'), CONSUMER_SOURCE);
  const configs = {
    'tsconfig.node16.json': { ...STRICT, module: 'node16', moduleResolution: 'node16' },
    'tsconfig.bundler.json': { ...STRICT, module: 'esnext', moduleResolution: 'bundler' },
  };
  for (const [file, compilerOptions] of Object.entries(configs))
    writeFileSync(join(dir, file), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }, null, 2));
  return Object.keys(configs);
}

/** A fresh npm project (ESM) in `dir`. */
export function writeProject(dir, name) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }, null, 2));
}

/** Bytes under `dir`, files and folders alike, symlinks not followed. */
export function folderBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else total += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/** Every folder named `name` (e.g. `openai`, `@anthropic-ai/sdk`) anywhere under node_modules. */
export function installedCopies(nodeModules, name) {
  const found = [];
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(path, { withFileTypes: true }))
          if (scoped.isDirectory()) check(join(path, scoped.name), `${entry.name}/${scoped.name}`);
      } else check(path, entry.name);
    }
  };
  const check = (path, packageName) => {
    if (packageName === name) found.push(path);
    const nested = join(path, 'node_modules');
    if (statSync(nested, { throwIfNoEntry: false })?.isDirectory()) visit(nested);
  };
  visit(nodeModules);
  return found;
}

/**
 * Every entry point (each `exports` subpath but ./package.json) of the installed packages `names`, as import
 * specifiers, split by whether its .d.ts imports an optional peer (e.g. @xsb/report/testing → playwright-core):
 * those compile only where the peer is installed. `peers` maps each such peer to its range.
 */
export function entryPoints(dir, names) {
  const plain = [];
  const withPeers = [];
  const peers = {};
  for (const name of names) {
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'));
    const optional = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
      (peer) => manifest.peerDependenciesMeta[peer].optional,
    );
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json' || subpath.includes('*')) continue;
      const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`;
      const types = readFileSync(join(dir, 'node_modules', name, target.types), 'utf8');
      const needed = optional.filter((peer) => types.includes(`from '${peer}'`));
      for (const peer of needed) peers[peer] = manifest.peerDependencies[peer];
      (needed.length ? withPeers : plain).push(specifier);
    }
  }
  return { plain, withPeers, peers };
}

/**
 * `<file>.ts` importing the types of every specifier, and its strict tsconfigs (node16, bundler) with `lib`:
 * tsc then checks every published .d.ts those imports reach. Returns the tsconfig file names.
 */
export function writeTypesConsumer(dir, file, specifiers, lib = ['es2022']) {
  const lines = specifiers.map((specifier, i) => `import type * as entry${i} from '${specifier}';`);
  lines.push(`export type Entries = [${specifiers.map((_, i) => `typeof entry${i}`).join(', ')}];`, '');
  writeFileSync(join(dir, `${file}.ts`), lines.join('\n'));
  const configs = {
    [`tsconfig.${file}-node16.json`]: { ...STRICT, lib, module: 'node16', moduleResolution: 'node16' },
    [`tsconfig.${file}-bundler.json`]: { ...STRICT, lib, module: 'esnext', moduleResolution: 'bundler' },
  };
  for (const [config, compilerOptions] of Object.entries(configs))
    writeFileSync(join(dir, config), JSON.stringify({ compilerOptions, files: [`${file}.ts`] }, null, 2));
  return Object.keys(configs);
}
