import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type TestUserConfig } from 'vitest/config';

const root = dirname(fileURLToPath(import.meta.url));

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
    if (existsSync(join(src, 'testing.ts'))) {
      aliases.push({ find: `@xsb/${name}/testing`, replacement: join(src, 'testing.ts') });
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
