import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  // Each command group is a dynamic import (commands/index.ts): its own chunk, so the built `xsb`
  // loads only the group it runs and `xsb --help` loads none.
  splitting: true,
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  banner: { js: '' },
});
