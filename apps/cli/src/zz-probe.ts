import { runXsb } from './testing-cli';

const cwd = '/tmp/probe-cli';
const cases: string[][] = [
  ['sources', '--data', 'nope'],
  ['probes', '--data', 'nope'],
  ['weights', '--data', 'nope'],
  ['weights', '--audiences', 'nope.yaml'],
  ['eval', '--data', 'nope'],
  ['metrics', '--data', 'nope'],
  ['aggregate', '--data', 'nope'],
  ['aggregate', 'nope-root'],
  ['llm', 'usage', '--ledger', 'nope.jsonl'],
  ['llm', 'usage'],
  ['llm', 'complete', '--judge', 'replay:nope.jsonl', '--prompt', 'x'],
  ['llm', 'cache', 'stats'],
  ['config', 'show', '--config', 'nope.json'],
  ['--config', 'nope.json', 'config', 'show'],
  ['demo', '--judge', 'replay:nope.jsonl', '--out', '/tmp/probe-cli/demo'],
  ['eval', '--judge', 'replay:nope.jsonl'],
];
for (const args of cases) {
  const r = await runXsb(args, { cwd });
  console.log(
    `${r.code}  xsb ${args.join(' ')}\n    ${(r.stderr.trim().split('\n')[0] ?? '').slice(0, 200)} | ${r.stdout.trim().split('\n')[0]?.slice(0, 100)}`,
  );
}
