import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir } from '@xsb/bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb } from '../../testing-cli';
import { REPO_ROOT } from '../../testing-fixtures';

const doc = await readFile(join(REPO_ROOT, 'docs', 'bench.md'), 'utf8');
const commands = /```sh worked-example\n([\s\S]*?)```/
  .exec(doc)![1]!
  .trim()
  .split('\n')
  .map((line) => line.replace(/^pnpm xsb /, ''));
const outputs = new Map(
  [...doc.matchAll(/```text output-(\d+)(?: exit=(\d))?\n([\s\S]*?)```/g)].map((m) => [
    Number(m[1]),
    { exit: Number(m[2] ?? 0), lines: m[3]!.trimEnd().split('\n') },
  ]),
);

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeFastTempDir('xsb-bench-worked-'));
});
afterAll(() => cleanup());

async function lastRun(): Promise<string> {
  const runs = (await readdir(join(root, 'bench-demo', 'data', 'bench', 'runs'))).sort();
  return runs.at(-1)!;
}

describe('docs/bench.md worked example', () => {
  it('has its commands and output blocks', () => {
    expect(commands).toHaveLength(8);
    expect([...outputs.keys()]).toEqual([1, 2, 3, 4, 5, 7, 8]);
  });

  it('runs as documented and prints every line the doc shows', async () => {
    let reportBefore: Buffer | null = null;
    for (const [index, command] of commands.entries()) {
      const run = command.includes('<run-id>') ? await lastRun() : '';
      const args = command
        .split(' ')
        .map((arg) => arg.replace('<run-id>', run))
        .map((arg) => (arg.startsWith('fixtures/') ? join(REPO_ROOT, arg) : arg));
      if (command.startsWith('bench report'))
        reportBefore = await readFile(join(root, args[2]!, 'report.md'));
      const result = await runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });
      const printed = `${result.stdout}\n${result.stderr}`
        .split(`${root}/`)
        .join('')
        .split(`${REPO_ROOT}/`)
        .join('')
        .split('\n')
        .map((line) => line.trimEnd());
      const expected = outputs.get(index + 1);
      expect(result.code, `${command}\n${result.stderr}`).toBe(expected?.exit ?? 0);
      for (const line of expected?.lines ?? [])
        expect(printed, `${command}: missing line\n${line}`).toContain(line);
      if (command.startsWith('bench report')) {
        const after = await readFile(join(root, args[2]!, 'report.md'));
        expect(Buffer.compare(after, reportBefore!)).toBe(0);
      }
    }
    // The refused test run wrote nothing: three runs before it (two bench runs), no ledger.
    expect((await readdir(join(root, 'bench-demo', 'data', 'bench', 'runs'))).length).toBe(2);
    await expect(readFile(join(root, 'bench-demo', 'data', 'bench', 'test_ledger.jsonl'))).rejects.toThrow();
  }, 900_000);
});
