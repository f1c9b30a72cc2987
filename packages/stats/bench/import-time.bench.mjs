// Import time of @xsb/stats and @xsb/metrics from their built dist/ (issue 22 asks < 100 ms each), each in a
// fresh node process, so nothing is cached between runs. A missing dist/ is built first with
//   pnpm --filter @xsb/stats --filter @xsb/metrics --filter @xsb/core build
// A time belongs here, not in a test: it depends on the machine and its load.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packages = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = 9;

// Each package imports itself by name from its own folder (a package may name itself through its exports).
const targets = [
  { name: '@xsb/stats', folder: join(packages, 'stats') },
  { name: '@xsb/metrics', folder: join(packages, 'metrics') },
];
const probe = (name) =>
  `const t = performance.now(); await import(${JSON.stringify(name)}); process.stdout.write(String(performance.now() - t));`;

const built = ['core', 'stats', 'metrics'].every((name) =>
  existsSync(join(packages, name, 'dist', 'index.js')),
);
if (!built) {
  const filters = ['core', 'stats', 'metrics'].flatMap((name) => ['--filter', `@xsb/${name}`]);
  execFileSync('pnpm', [...filters, 'build'], { stdio: 'inherit' });
}

for (const { name, folder } of targets) {
  const times = Array.from({ length: RUNS }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', probe(name)], { cwd: folder })),
  ).sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)];
  console.log(
    `import ${name} (dist): median ${median.toFixed(1)} ms, min ${times[0].toFixed(1)}, max ${times[RUNS - 1].toFixed(1)} ` +
      `over ${RUNS} fresh processes (target < 100 ms)`,
  );
}
