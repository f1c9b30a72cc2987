import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestUserConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

function exportedSubpaths(folder: string): string[] {
  const manifest = join(folder, 'package.json');
  if (!existsSync(manifest)) return [];
  const exports = JSON.parse(readFileSync(manifest, 'utf8')).exports ?? {};
  return Object.keys(exports)
    .filter((key) => key.startsWith('./') && key !== './package.json')
    .map((key) => key.slice(2));
}

/** Workspace packages resolve to their sources, so `pnpm test` needs no build. */
function workspaceAliases(): Array<{ find: string; replacement: string }> {
  const aliases: Array<{ find: string; replacement: string }> = [];
  // Apps too, named like packages: `@xsb/<folder>`.
  const folders = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group)).map((name) => ({ group, name })),
  );
  for (const { group, name } of folders) {
    const src = join(root, group, name, 'src');
    if (!existsSync(join(src, 'index.ts'))) continue;
    // Subpaths first (an alias also matches what starts with it): `./testing` and the entries package.json
    // exports, each `src/<entry>.ts` (core's light `./errors` and `./seeded-random`).
    for (const entry of new Set(['testing', ...exportedSubpaths(join(root, group, name))])) {
      const file = join(src, `${entry}.ts`);
      if (existsSync(file)) aliases.push({ find: `@xsb/${name}/${entry}`, replacement: file });
    }
    aliases.push({ find: `@xsb/${name}`, replacement: join(src, 'index.ts') });
  }
  return aliases;
}

/**
 * `test` replaces the defaults key by key. Test files of a worker share one module graph (`isolate: false`):
 * loading the packages again for each of ~200 files cost a third of the suite's CPU time. No test mocks a
 * module, and each starts its own servers, folders and clients, so nothing a file leaves behind is read by another.
 */
export function defineXsbConfig(test: TestUserConfig = { include: ['src/**/*.test.ts'] }) {
  return defineConfig({
    resolve: { alias: workspaceAliases() },
    test: { testTimeout: 30_000, hookTimeout: 30_000, isolate: false, ...test },
  });
}
