// `pnpm --filter @xsb/cli bench`: how long the built `xsb --help` takes, start to exit.
// Builds the bin and the packages it needs first (turbo replays its cache when nothing changed),
// then runs `node dist/main.js --help` N times (default 15; XSB_BENCH_RUNS overrides) after one
// discarded warm-up, and prints the median wall time with min and max, next to a bare `node -e 0`
// (the floor no CLI can go below on this machine). Target: median under 0.6 s.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(cliDir, '..', '..');
const runs = Number(process.env.XSB_BENCH_RUNS ?? 15);
const TARGET_S = 0.6;

const build = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'build', '--filter=@xsb/cli...', '--output-logs=errors-only'],
  {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
if (build.status !== 0) {
  console.error('build failed');
  process.exit(1);
}

function time(args) {
  const walls = [];
  for (let i = 0; i <= runs; i += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    if (i > 0) walls.push(seconds); // the first run warms the disk cache and is not counted
  }
  walls.sort((a, b) => a - b);
  const middle = Math.floor(walls.length / 2);
  const median = walls.length % 2 ? walls[middle] : (walls[middle - 1] + walls[middle]) / 2;
  return { median, min: walls[0], max: walls.at(-1) };
}

const fmt = ({ median, min, max }) =>
  `median ${median.toFixed(3)} s (min ${min.toFixed(3)}, max ${max.toFixed(3)})`;
const help = time([join(cliDir, 'dist', 'main.js'), '--help']);
const floor = time(['-e', '0']);
console.log(`xsb --help (built bin, ${runs} runs): ${fmt(help)}`);
console.log(`node -e 0 (floor):            ${fmt(floor)}`);
console.log(
  `target < ${TARGET_S} s: ${help.median < TARGET_S ? 'met' : 'NOT met'} (${(help.median - floor.median).toFixed(3)} s above node's own start)`,
);
