import { defineConfig } from 'tsup';

export default defineConfig({
  // `./errors` and `./seeded-random` load nothing else (no zod, no yaml): @xsb/stats imports only them.
  entry: ['src/index.ts', 'src/testing.ts', 'src/errors.ts', 'src/seeded-random.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
});
