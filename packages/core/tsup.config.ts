import { defineConfig } from 'tsup';

export default defineConfig({
  // `./errors`, `./seeded-random` and `./basics` load no npm package (no zod, no yaml): @xsb/stats and
  // @xsb/metrics import their values from them.
  entry: ['src/index.ts', 'src/testing.ts', 'src/errors.ts', 'src/seeded-random.ts', 'src/basics.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
});
