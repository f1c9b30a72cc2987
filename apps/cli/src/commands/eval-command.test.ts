import { existsSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
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
      '1/1 job done with judge lexical',
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

  it('refuses filter values that match nothing with exit 2, listing the known values', async () => {
    const evalCase = await run('eval --data demo/data --run demo --case no_such_case');
    expect(evalCase.code).toBe(2);
    expect(evalCase.stderr).toMatch(
      /^ERROR: unknown case "no_such_case" in run "demo" \(known: cs_raft_consensus, energy_heat_pump_pilot, .*\)\n$/,
    );
    const refusals: Array<[string, string]> = [
      [
        'eval --data demo/data --run demo --system notebookml',
        'unknown system "notebookml" in run "demo" (known: notebooklm, xsb-baseline)',
      ],
      [
        'eval --data demo/data --run demo --system notebooklm --condition audience_conditioned',
        'matches all the filters at once',
      ],
      [
        'metrics --data demo/data --run demo --audience learner',
        'unknown audience "learner" among the evaluations of run "demo" (known: decision_makers, learners, specialists)',
      ],
      [
        'aggregate --data demo/data --run demo --out agg-f --condition agnostic',
        'unknown condition "agnostic" among the metric rows of',
      ],
    ];
    for (const [args, message] of refusals) {
      const refused = await run(args);
      expect(refused.code, args).toBe(2);
      expect(refused.stderr, args).toContain(message);
    }
    expect(existsSync(join(root, 'agg-f'))).toBe(false);
    const selected = await run(
      'aggregate --data demo/data --run demo --out agg-f --system notebooklm --audience learners --json',
    );
    expect(selected.code).toBe(0);
    const summary = JSON.parse(selected.stdout);
    expect(summary.groups.map((g: { system_id: string }) => g.system_id)).toEqual([
      'notebooklm__audience_agnostic',
    ]);
  });

  it('xsb metrics refuses a run without evaluations with exit 2, and labels offline judges', async () => {
    const noRun = await run('metrics --data demo/data --run no-such-run');
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(
      /^ERROR: run "no-such-run": evaluation folder .* does not exist; evaluate the run first/,
    );
    const table = await run('metrics --data demo/data --run demo --case energy_heat_pump_pilot');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^judges: `lexical` \(offline, no model\) for probes, weights, answerability, correctness\nWARNING: Offline judges/,
    );
  });

  it('xsb aggregate lists every job of the run without metrics, prints it and exits 1', async () => {
    await cp(join(root, 'demo'), join(root, 'gaps'), { recursive: true });
    const evaluations = join(root, 'gaps', 'data', 'runs', 'demo', 'evaluations');
    const job = join(evaluations, 'notebooklm', 'audience_agnostic', 'learners', 'energy_heat_pump_pilot');
    // never evaluated: neither the job folder nor its compact metrics copy
    await rm(job, { recursive: true });
    await rm(
      join(
        root,
        'gaps',
        'data',
        'runs',
        'demo',
        'metrics',
        'notebooklm__audience_agnostic',
        'learners',
        'energy_heat_pump_pilot.json',
      ),
    );
    const result = await run('aggregate --data gaps/data --run demo');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `missing: notebooklm/audience_agnostic/learners/energy_heat_pump_pilot (not run): not evaluated yet [${job}]\nto evaluate the missing jobs: run \`xsb eval --data gaps/data --run demo\` (it resumes)\n`,
    );
    expect(result.stdout).toContain('- missing jobs: 1 evaluation job of the run has no metrics.json');
    const summary = JSON.parse(
      await readFile(join(root, 'gaps', 'data', 'runs', 'demo', 'summary', 'summary.json'), 'utf8'),
    );
    expect(summary.missing_jobs).toEqual([
      expect.objectContaining({ system: 'notebooklm', audience: 'learners', status: 'not_run' }),
    ]);
    expect(summary.row_count).toBe(20);
    // over folders that are not a run, nobody can know which jobs are missing: it says so
    const folders = await run([
      'aggregate',
      join(root, 'gaps', 'data', 'runs', 'demo'),
      '--out',
      'agg-roots',
    ]);
    expect(folders.code).toBe(0);
    expect(folders.stdout).toContain('- missing jobs: unknown (aggregated from folders, not from a run');
  });

  it('every stage after probes warns about a case with an empty probe bank, and the report says so', async () => {
    await cp(join(root, 'demo', 'data'), join(root, 'empty'), { recursive: true });
    const bank = join(root, 'empty', 'probes', 'energy_heat_pump_pilot');
    const statusFile = join(bank, 'probe_generation_status.json');
    const status = JSON.parse(await readFile(statusFile, 'utf8'));
    status.counts = { ...status.counts, duplicates: 0, final: 0, generated: status.counts.filtered };
    await writeFile(statusFile, JSON.stringify(status));
    await writeFile(join(bank, 'probes_deduped.jsonl'), '');
    const warning = 'warning: case energy_heat_pump_pilot: 0 probes, contributes no coverage';
    const stages: XsbArgs[] = [
      'weights --data empty --case energy_heat_pump_pilot',
      'eval --data empty --run demo --case energy_heat_pump_pilot',
      'metrics --data empty --run demo',
      'aggregate --data empty --run demo',
    ];
    for (const args of stages) expect((await run(args)).stderr, String(args)).toContain(warning);
    expect(await readFile(join(root, 'empty', 'runs', 'demo', 'summary', 'report.md'), 'utf8')).toContain(
      '- case energy_heat_pump_pilot: 0 probes, contributes no coverage',
    );
    const others = await run('metrics --data demo/data --run demo');
    expect(others.stderr).not.toContain('0 probes');
  }, 60_000);
});
