import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFastTempDir, prepareBenchData } from '@xsb/bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../../testing-cli';
import { REPO_ROOT } from '../../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;
let prepared: string;
let copies = 0;

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

async function dataCopy(): Promise<string> {
  copies += 1;
  const target = join(root, `d${copies}`, 'data');
  await cp(prepared, target, { recursive: true });
  return target;
}

const runsOf = async (data: string) =>
  existsSync(join(data, 'bench', 'runs')) ? (await readdir(join(data, 'bench', 'runs'))).sort() : [];

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeFastTempDir('xsb-bench-cli-'));
  prepared = await prepareBenchData(join(root, 'prepared'));
}, 240_000);
afterAll(() => cleanup());

describe('xsb bench', () => {
  it('refuses usage errors with exit 2 before any work, naming what is wrong', async () => {
    const data = await dataCopy();
    const cases: Array<[string[], RegExp]> = [
      [
        ['bench', 'run', '--data', data, '--run', 'demo', '--configs', 'nope'],
        /unknown configuration "nope"/,
      ],
      [
        ['bench', 'run', '--data', data, '--run', 'demo', '--systems', 'ghost__audience_agnostic'],
        /unknown system "ghost__audience_agnostic"/,
      ],
      [['bench', 'run', '--data', data, '--run', 'nowhere'], /run "nowhere": deck folder/],
      [
        ['bench', 'run', '--data', data, '--run', 'demo', '--llm', 'replay:missing.jsonl'],
        /replay store .*missing\.jsonl does not exist/,
      ],
      [
        ['bench', 'run', '--data', data, '--run', 'demo', '--judge', 'openai:gpt-x'],
        /pins|replay store \(spec 002\)/,
      ],
      [
        ['bench', 'run', '--data', data, '--run', 'demo', '--configs', 'ladder', '--factors', 'colour'],
        /unknown factor "colour"/,
      ],
      [['bench', 'run', '--data', data, '--run', 'demo', '--split', 'all'], /--unseal-test/],
      [
        ['bench', 'split', '--data', data, '--test-share', '1.5'],
        /--test-share must be a number >= 0 and <= 1/,
      ],
      [['bench', 'power', '--sd', '0', '--effect', '0.1'], /--sd must be a number > 0/],
    ];
    for (const [args, message] of cases) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^ERROR: /);
      expect(result.stderr).toMatch(message);
    }
    await writeFile(join(data, 'bench.yaml'), 'configurations:\n  fast: {batchsize: 2}\n');
    const badConfig = await run(['bench', 'run', '--data', data, '--run', 'demo', '--configs', 'fast']);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/bench\.yaml.*configurations\.fast.*batchsize/);
    expect(await runsOf(data)).toEqual([]);
    expect(existsSync(join(data, 'bench', 'test_ledger.jsonl'))).toBe(false);
  });

  it('refuses a factor the offline judge cannot serve when it is named, exit 2 and nothing written', async () => {
    const data = await dataCopy();
    const yaml = join(root, 'slides-factor.yaml');
    await writeFile(yaml, 'factors:\n  slides:\n    on: {judge_input: image}\n');
    const base = ['bench', 'run', '--data', data, '--run', 'demo'];
    const attempts: Array<[string[], RegExp]> = [
      [[...base, '--configs', 'ladder', '--factors', 'judge_input'], /factor "judge_input": /],
      [[...base, '--configs', 'loo', '--factors', 'claims,judge_input', '--json'], /factor "judge_input": /],
      [[...base, '--configs', 'factorial', '--bench-config', yaml], /factor "slides": /],
    ];
    for (const [args, names] of attempts) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^ERROR: /);
      expect(result.stderr).toMatch(names);
      expect(result.stderr).toContain(
        'judge_input=image (rendered slides) and the lexical judge cannot read images',
      );
    }
    expect(existsSync(join(data, 'bench'))).toBe(true); // the stored split, and no run folder in it
    expect(await runsOf(data)).toEqual([]);
  });

  it('names a factor the default set left out, in the output and in summary.json', async () => {
    const data = await dataCopy();
    const args = ['bench', 'run', '--data', data, '--run', 'demo', '--configs', 'ladder'];
    const result = await run([
      ...args,
      '--systems',
      'notebooklm__audience_agnostic',
      '--resamples',
      '200',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const reason =
      'its "on" side sets judge_input=image (rendered slides) and the lexical judge cannot read images';
    expect(result.stderr).toContain(`left out factor judge_input: ${reason}`);
    const summary = JSON.parse(result.stdout);
    expect(summary.left_out_factors).toEqual([{ factor: 'judge_input', reason }]);
    expect(summary.rows.failed).toBe(0);
    expect(summary.configurations.map((c: { name: string }) => c.name)).toEqual([
      'L0:base',
      'L1:+batch_size',
      'L2:+weight_k',
      'L3:+claims',
    ]);
  }, 180_000);

  it('runs, prints the report, re-renders it and compares against another reference', async () => {
    const data = await dataCopy();
    const result = await run(['bench', 'run', '--data', data, '--run', 'demo', '--resamples', '300']);
    expect(result.code).toBe(0);
    // The imported notebooklm system sorts first; the default reference is the run sheet's first system.
    expect(result.stderr).toContain(
      "reference: xsb-baseline__audience_agnostic (the run sheet's first system)",
    );
    expect(result.stdout).toContain('test split opened 0 times');
    expect(result.stdout).toContain('**Offline judge**');
    const [runId] = await runsOf(data);
    const dir = join(data, 'bench', 'runs', runId!);
    const report = await readFile(join(dir, 'report.md'), 'utf8');
    expect(result.stdout).toContain(report.trimEnd());
    const rerendered = await run(['bench', 'report', dir]);
    expect(rerendered.code).toBe(0);
    expect(await readFile(join(dir, 'report.md'), 'utf8')).toBe(report);
    const compared = await run(['bench', 'compare', '--run', dir, '--json']);
    const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'));
    expect(JSON.parse(compared.stdout)).toEqual(summary.comparisons);
    const other = await run([
      'bench',
      'compare',
      '--run',
      dir,
      '--reference',
      'xsb-baseline__audience_conditioned',
      '--json',
    ]);
    const references = (JSON.parse(other.stdout) as Array<{ kind: string; a: { system_id: string } }>).filter(
      (c) => c.kind === 'reference',
    );
    expect(references.length).toBeGreaterThan(0);
    expect(references.every((c) => c.a.system_id === 'xsb-baseline__audience_conditioned')).toBe(true);
    const power = await run(['bench', 'power', '--sd', '0.2', '--effect', '0.05', '--json']);
    expect(JSON.parse(power.stdout)).toMatchObject({ units: 126, cases: 126, design_effect: 1 });
  }, 180_000);

  it('--design compares the systems on their design metrics, and a deck it cannot render exits 1 naming it', async () => {
    const data = await dataCopy();
    const systems = [
      '--systems',
      'notebooklm__audience_agnostic',
      '--systems',
      'xsb-baseline__audience_agnostic',
    ];
    const measured = await run([
      'bench',
      'run',
      '--data',
      data,
      '--run',
      'demo',
      '--design',
      '--json',
      ...systems,
    ]);
    expect(measured.code).toBe(0);
    const summary = JSON.parse(measured.stdout) as {
      metrics: string[];
      comparisons: Array<{ metric: string }>;
    };
    expect(summary.metrics).toContain('design.contrast_median');
    expect(summary.comparisons.map((c) => c.metric)).toContain('design.contrast_median');

    const unrendered = await runXsb(
      ['bench', 'run', '--data', await dataCopy(), '--run', 'demo', '--design', ...systems],
      {
        cwd: root,
        env: { PATH: '' },
      },
    );
    expect(unrendered.code).toBe(1);
    expect(unrendered.stderr).toMatch(
      /failed: runs\/demo\/decks\/xsb-baseline\/audience_agnostic\/.*\.pptx: design metrics: .*LibreOffice/,
    );
    expect(unrendered.stderr).not.toMatch(/failed: .*\.pdf: design/);
  }, 180_000);

  it('compares two runs paired over their cases, and refuses runs of different judges without anchors', async () => {
    const data = await dataCopy();
    expect((await run(['bench', 'run', '--data', data, '--run', 'demo', '--resamples', '200'])).code).toBe(0);
    const tau = ['bench', 'run', '--data', data, '--run', 'demo', '--resamples', '200', '--tau-a', '0.6'];
    expect((await run(tau)).code).toBe(0);
    const [idA, idB] = await runsOf(data);
    const dirA = join(data, 'bench', 'runs', idA!);
    const dirB = join(data, 'bench', 'runs', idB!);
    const json = await run(['bench', 'compare', '--run', dirA, '--run', dirB, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result).toMatchObject({ a: { run_id: idA }, b: { run_id: idB }, anchor: null });
    expect(result.configurations[0]).toMatchObject({ judges_differ: false, settings_differ: ['tau_a'] });
    const coverage = result.comparisons.filter((c: { metric: string }) => c.metric === 'coverage');
    expect(coverage.length).toBeGreaterThan(0);
    expect(coverage.some((c: { mean_diff: number }) => c.mean_diff !== 0)).toBe(true);
    const table = await run(['bench', 'compare', '--run', dirA, '--run', dirB]);
    expect(table.stdout).toContain(`A = bench run ${idA} (`);
    expect(table.stdout).toContain('configuration default: judge lexical; settings that differ: tau_a');
    expect(table.stdout).toMatch(/\| default \| xsb-baseline__audience_agnostic \| coverage \| \d+ \|/);

    // The same run, as if judged by a replay store: refused before any statistics, saying why.
    const replayed = join(data, 'bench', 'runs', 'replayed');
    await cp(dirA, replayed, { recursive: true });
    const record = JSON.parse(await readFile(join(replayed, 'run.json'), 'utf8'));
    const judge = 'replay:/stores/other.jsonl';
    record.run_id = 'replayed';
    record.judges = [
      { id: judge, offline: false, replay_store: '/stores/other.jsonl', mode: 'replay', model_label: 'm' },
    ];
    for (const configuration of record.configurations) configuration.settings.judge = judge;
    await writeFile(join(replayed, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
    const refused = await run(['bench', 'compare', '--run', dirA, '--run', replayed]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `ERROR: the two runs were judged by different judges (lexical vs ${judge} (model m))`,
    );
    expect(refused.stderr).toContain(
      '  - lexical: no anchor check\n  - replay:/stores/other.jsonl (model m): no anchor check\n',
    );
    expect(refused.stderr).toMatch(/\n {2}run `xsb meta anchors check --data \S+ --judge lexical`\n$/);
    expect((await run(['bench', 'compare', '--run', dirA, '--run', replayed, '--min-kappa', '2'])).code).toBe(
      2,
    );
    const withReference = await run(['bench', 'compare', '--run', dirA, '--run', dirB, '--reference', 'x']);
    expect(withReference.code).toBe(2);
    expect(withReference.stderr).toContain('--reference applies to one run');
  }, 180_000);

  it('marks a run killed with SIGKILL as failed (interrupted) at the next bench command', async () => {
    const data = await dataCopy();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'apps/cli/src/main.ts'),
        'bench',
        'run',
        '--data',
        data,
        '--run',
        'demo',
        '--configs',
        'factorial',
        '--factors',
        'batch_size,weight_k,claims',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, HOME: root, XDG_CACHE_HOME: join(root, 'cache') },
        stdio: 'ignore',
      },
    );
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    let runFile: string | null = null;
    const deadline = Date.now() + 120_000;
    while (runFile === null && Date.now() < deadline) {
      const [runId] = await runsOf(data);
      const candidate = runId ? join(data, 'bench', 'runs', runId, 'run.json') : null;
      if (candidate && existsSync(candidate)) runFile = candidate;
      else await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await exited;
    expect(runFile).not.toBeNull();
    const before = JSON.parse(await readFile(runFile!, 'utf8'));
    // Killed long before its 168 jobs were done: the record says running, with the dead pid.
    expect(before.status).toBe('running');
    expect(before.pid).toBe(child.pid);
    const next = await run(['bench', 'split', '--data', data]);
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(
      `bench run ${before.run_id}: its process is gone; marked failed (interrupted)`,
    );
    const after = JSON.parse(await readFile(runFile!, 'utf8'));
    expect(after).toMatchObject({ status: 'failed', reason: 'interrupted', run_id: before.run_id });
    expect(after.finished_at).toEqual(expect.any(String));
  }, 240_000);
});
