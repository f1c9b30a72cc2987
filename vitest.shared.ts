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

/**
 * `maxWorkers`: vitest's default on 2 cores is 1 worker, so a package whose files mostly wait on
 * child processes (the CLI) runs them one after another; such a package asks for more.
 */
export function defineXsbConfig(options: { maxWorkers?: number } = {}) {
  return defineConfig({
    resolve: { alias: workspaceAliases() },
    test: {
      include: ['src/**/*.test.ts'],
      ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  });
}
