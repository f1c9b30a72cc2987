import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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

export function defineXsbConfig() {
  return defineConfig({
    resolve: { alias: workspaceAliases() },
    test: {
      include: ['src/**/*.test.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  });
}
