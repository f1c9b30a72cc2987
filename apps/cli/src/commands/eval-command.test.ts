import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { runDemo } from '@xsb/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';

let root: string;
let cleanup: () => Promise<void>;

const run = (args: XsbArgs) => runXsb(args, { cwd: root });

const ledgerLines = async () =>
  (await readFile(join(root, 'demo', 'data', 'runs', 'demo', 'usage_ledger.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean).length;

describe('xsb eval, xsb metrics, xsb aggregate', () => {
  beforeAll(async () => {
    ({ dir: root, cleanup } = await makeTempDir('xsb-eval-cli-'));
    await runDemo({ outDir: join(root, 'demo') });
  }, 120_000);
  afterAll(() => cleanup());

  it('xsb eval reuses current jobs without judge calls and honours filters', async () => {
    const before = await ledgerLines();
    const result = await run('eval --data demo/data --run demo --audience learners --system notebooklm');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^reused\s+notebooklm\/audience_agnostic\/learners\/energy_heat_pump_pilot/),
      '1/1 jobs done with judge lexical',
    ]);
    expect(await ledgerLines()).toBe(before);
  });

  it('xsb metrics recomputes every evaluation at a new tau_a', async () => {
    const result = await run(['metrics', '--data', 'demo/data', '--run', 'demo', '--tau-a', '0.3', '--json']);
    expect(result.code).toBe(0);
    const { rows, failures } = JSON.parse(result.stdout);
    expect(failures).toEqual([]);
    expect(rows).toHaveLength(21);
    expect(
      rows.every(
        (row: { tau_a: number; coverage: number | null }) => row.tau_a === 0.3 && row.coverage !== null,
      ),
    ).toBe(true);
  });

  it('xsb aggregate writes summary files with the requested seed and prints tables', async () => {
    const result = await run('aggregate --data demo/data --run demo --out agg --seed 5 --resamples 200');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('## Audience: specialists');
    const summary = JSON.parse(await readFile(join(root, 'agg', 'summary.json'), 'utf8'));
    expect(summary.bootstrap).toMatchObject({ seed: 5, resamples: 200 });
    expect(summary.row_count).toBe(21);
  });

  it('rejects bad flags with exit code 2 before any work', async () => {
    const badTau = await run(['eval', '--data', 'demo/data', '--tau-a', '1.5']);
    expect(badTau.code).toBe(2);
    expect(badTau.stderr).toContain('--tau-a must be a number from 0 to 1');
    const badBatch = await run(['eval', '--data', 'demo/data', '--batch-size', '0']);
    expect(badBatch.code).toBe(2);
    const badJudge = await run(['eval', '--data', 'demo/data', '--run', 'demo', '--judge', 'openai:gpt-x']);
    expect(badJudge.code).toBe(2);
    expect(badJudge.stderr).toContain('OPENAI_API_KEY');
  });
  it('refuses a run or folder that does not exist with exit 2 before any work, writing nothing', async () => {
    const noRun = await run(['eval', '--data', 'demo/data', '--run', 'no-such-run']);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(
      /^ERROR: run "no-such-run": deck folder .*no-such-run\/decks does not exist; generate or import decks/,
    );
    const noRoot = await run(['aggregate', 'no-such-folder', '--out', 'agg-empty']);
    expect(noRoot.code).toBe(2);
    expect(noRoot.stderr).toBe(`ERROR: folder ${join(root, 'no-such-folder')} does not exist\n`);
    const noRunAggregate = await run(['aggregate', '--data', 'demo/data', '--run', 'no-such-run']);
    expect(noRunAggregate.code).toBe(2);
    expect(existsSync(join(root, 'agg-empty'))).toBe(false);
    expect(existsSync(join(root, 'demo', 'data', 'runs', 'no-such-run'))).toBe(false);
  });
});
