import { defineConfig } from 'vitest/config';
import { defineXsbConfig } from './vitest.shared.ts';

// `pnpm test` is one vitest run over every package, so files of all packages share the workers (most wait
// on child processes: xsb, LibreOffice, Chromium, redis-server). The CLI's worker test measures a lease
// takeover in wall time (docs/api.md promises `--lease` + 1 s): it runs alone, after everything else.
const timed = ['src/commands/worker-command.test.ts'];

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      'packages/*',
      { extends: './apps/cli/vitest.config.ts', root: './apps/cli', test: { name: 'cli', exclude: timed } },
      {
        ...defineXsbConfig({ name: 'cli-timed', include: timed, sequence: { groupOrder: 1 } }),
        root: './apps/cli',
      },
    ],
  },
});
