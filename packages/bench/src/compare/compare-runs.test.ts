import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  exitCodeFor,
  type MetaAnchorCheck,
  type MetaAnchorSet,
  metaAnchorCheckSchema,
  metaAnchorSetSchema,
  readJson,
  readJsonlAll,
  writeJson,
  type XsbError,
} from '@xsb/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBenchRun } from '../run/bench-run-files';
import { runBench } from '../run/run-bench';
import { benchRowSchema } from '../schemas/bench-row';
import { benchRunSchema } from '../schemas/bench-run';
import { makeFastTempDir, prepareBenchData } from '../testing';
import { anchorCheckFile, anchorSetFile } from './anchor-checks';
import { compareSides } from './compare-rows';
import { compareBenchRuns } from './compare-runs';

let root: string;
let cleanup: () => Promise<void>;
let data: string;
let runA: string;
let runB: string;

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeFastTempDir('xsb-bench-runs-'));
  data = await prepareBenchData(join(root, 'demo'));
  runA = (await runBench({ dataDir: data, pipelineRun: 'demo' })).dir;
  runB = (await runBench({ dataDir: data, pipelineRun: 'demo', tauA: 0.6 })).dir;
}, 240_000);
afterAll(() => cleanup());

/** A copy of a run folder under the same data folder, its run.json and rows changed by `edit`. */
async function copyRun(
  from: string,
  name: string,
  edit: (run: Record<string, unknown>) => void,
  keepRow: (row: { case: string }) => boolean = () => true,
): Promise<string> {
  const dir = join(data, 'bench', 'runs', name);
  await cp(from, dir, { recursive: true });
  const run = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
  run.run_id = name;
  edit(run);
  await writeJson(join(dir, 'run.json'), benchRunSchema, run);
  const rows = (await readJsonlAll(join(dir, 'per_row.jsonl'), benchRowSchema)).filter(keepRow);
  await writeFile(join(dir, 'per_row.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  return dir;
}

const STORE = '/stores/judge.jsonl';
/** Run B as if judged from a replay store standing for model `m`. */
const asReplay = (run: Record<string, unknown>) => {
  const judge = `replay:${STORE}`;
  run.judges = [{ id: judge, offline: false, replay_store: STORE, mode: 'replay', model_label: 'm' }];
  for (const configuration of run.configurations as Array<{ settings: { judge: string } }>)
    configuration.settings.judge = judge;
};

async function writeAnchors(
  frozenBy: string,
  checks: Array<{ judge: string; kappa: number; rubric?: number }>,
) {
  const set: MetaAnchorSet = {
    id: 'anchors',
    judge: frozenBy,
    run: 'demo',
    seed: 12,
    frozen_at: '2026-12-01T10:00:00.000Z',
    decks: [],
    verdicts: [],
    item_count: 100,
  };
  await writeJson(anchorSetFile(data, 'anchors'), metaAnchorSetSchema, set);
  for (const { judge, kappa, rubric } of checks) {
    const check: MetaAnchorCheck = {
      anchor_set: 'anchors',
      judge,
      frozen_judge: frozenBy,
      n: 100,
      agreement: 0.9,
      kappa,
      min_kappa: 0.8,
      passed: kappa >= 0.8,
      reason: 'written by the test',
      classes: [
        { class: 'probe_coverage', n: 100 - (rubric ?? 0), agreement: 0.9, kappa },
        ...(rubric ? [{ class: 'rubric.design', n: rubric, agreement: 0.9, kappa }] : []),
      ],
      only_in_frozen: 0,
      only_in_check: 0,
      checked_at: '2026-12-01T11:00:00.000Z',
    };
    await mkdir(join(anchorCheckFile(data, 'anchors', judge), '..'), { recursive: true });
    await writeJson(anchorCheckFile(data, 'anchors', judge), metaAnchorCheckSchema, check);
  }
}

describe('compareBenchRuns', () => {
  it('pairs each (configuration, system) of two runs over their shared cases with the bench statistics', async () => {
    const result = await compareBenchRuns(runA, runB);
    expect(result.anchor).toBeNull();
    expect(result.configurations).toEqual([
      {
        name: 'default',
        judge_a: { id: 'lexical', model_label: null },
        judge_b: { id: 'lexical', model_label: null },
        judges_differ: false,
        settings_differ: ['tau_a'],
      },
    ]);
    expect(result.systems).toEqual([
      'notebooklm__audience_agnostic',
      'xsb-baseline__audience_agnostic',
      'xsb-baseline__audience_conditioned',
    ]);
    // The same statistics as a comparison inside a run, on the rows of the two runs.
    const [a, b] = [await readBenchRun(runA), await readBenchRun(runB)];
    const system = result.systems[0]!;
    const pick = (rows: typeof a.rows) => rows.filter((row) => row.system_id === system);
    const direct = compareSides(
      pick(a.rows),
      pick(b.rows),
      `${a.run.run_id}|default|${system}|${b.run.run_id}|default|${system}`,
      { ...a.run.bootstrap, diagBelow: a.run.diag_below },
    );
    const mine = result.comparisons.filter((c) => c.system_id === system);
    expect(mine.map(({ holm_p: _h, configuration: _c, system_id: _s, ...rest }) => rest)).toEqual(
      direct.map(({ holm_p: _h, ...rest }) => rest),
    );
    // tau_a 0.6 takes in probes the 0.7 run left out: coverage moves, correctness (weight-free) does not.
    const coverage = mine.find((c) => c.metric === 'coverage')!;
    expect(coverage.mean_diff).not.toBe(0);
    expect(mine.find((c) => c.metric === 'correctness')!.mean_diff).toBe(0);
    expect(result.comparisons.every((c) => c.mcnemar === null || c.holm_p !== null)).toBe(true);
  }, 60_000);

  it('pairs over the intersection of cases and lists the cases only one run has', async () => {
    const full = await readBenchRun(runA);
    const dropped = full.run.cases[0]!;
    const partial = await copyRun(
      runB,
      'partial',
      () => {},
      (row) => row.case !== dropped,
    );
    const result = await compareBenchRuns(runA, partial);
    // The built-in generator has a deck for every case; the imported system for one only.
    const correctness = result.comparisons.filter(
      (c) => c.metric === 'correctness' && c.system_id.startsWith('xsb-baseline'),
    );
    expect(correctness).toHaveLength(2);
    expect(correctness.every((c) => c.n_cases === full.run.cases.length - 1)).toBe(true);
    expect(correctness.every((c) => c.missing_cases.only_a.join() === dropped)).toBe(true);
  });

  it('refuses runs of different judges without anchor checks, naming each judge and what to run', async () => {
    const replayRun = await copyRun(runA, 'replay-judged', asReplay);
    const error = await compareBenchRuns(runA, replayRun).catch((caught: unknown) => caught);
    expect(exitCodeFor(error)).toBe(2);
    const message = String((error as Error).message);
    expect(message).toContain(
      `the two runs were judged by different judges (lexical vs replay:${STORE} (model m))`,
    );
    expect(message).toContain('  - lexical: no anchor check\n');
    expect(message).toContain(`  - replay:${STORE} (model m): no anchor check\n`);
    expect(message).toContain('freeze an anchor set if there is none');
    expect(message).not.toMatch(/xsb |--/);
    expect((error as XsbError).remedy).toEqual({
      step: 'anchor-check',
      dataDir: expect.any(String),
      judge: 'lexical',
    });
  });

  it('compares them once both judges pass on the same anchor set, and refuses below the threshold', async () => {
    const replayRun = join(data, 'bench', 'runs', 'replay-judged');
    const judge = `replay:${STORE}`;
    await writeAnchors('lexical', [{ judge, kappa: 0.62 }]);
    const low = await compareBenchRuns(runA, replayRun).catch((caught: unknown) => caught);
    expect(exitCodeFor(low)).toBe(2);
    expect(String((low as Error).message)).toContain(
      `  - replay:${STORE} (model m): anchor set "anchors": kappa 0.620 over 100 items (does not pass)`,
    );
    expect(String((low as Error).message)).toContain('  - lexical: anchor set "anchors": froze it (passes)');
    expect((low as XsbError).remedy).toMatchObject({ step: 'anchor-check', judge });
    const lowered = await compareBenchRuns(runA, replayRun, { minKappa: 0.6 });
    expect(lowered.anchor).toMatchObject({
      anchor_set: 'anchors',
      judges: [
        { judge: 'lexical', froze: true },
        { judge, froze: false, kappa: 0.62, n: 100 },
      ],
    });
    await writeAnchors('lexical', [{ judge, kappa: 0.91 }]);
    const passed = await compareBenchRuns(runA, replayRun);
    expect(passed.configurations[0]).toMatchObject({ judges_differ: true, settings_differ: [] });
    expect(passed.anchor?.judges[1]).toMatchObject({ kappa: 0.91 });
    // Same rows (a copy), so every difference is 0.
    expect(passed.comparisons.every((c) => c.mean_diff === 0)).toBe(true);
  });

  it('asks for rubric verdicts among the anchors when the rows carry rubric scores', async () => {
    const withRubric = (run: Record<string, unknown>) => asReplay(run);
    const rubricRow = (row: Record<string, unknown>) => {
      row.rubric = {
        instance: String(row.case),
        judge: 'x',
        total: null,
        dimensions: { design: 50 },
        items: { 'design.2.1': 'yes' },
        error: null,
      };
    };
    const dir = await copyRun(runA, 'rubric-judged', withRubric);
    const rows = await readJsonlAll(join(dir, 'per_row.jsonl'), benchRowSchema);
    for (const row of rows) rubricRow(row as Record<string, unknown>);
    await writeFile(join(dir, 'per_row.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const judge = `replay:${STORE}`;
    await writeAnchors('lexical', [{ judge, kappa: 0.95 }]);
    const refused = await compareBenchRuns(runA, dir).catch((caught: unknown) => caught);
    expect(exitCodeFor(refused)).toBe(2);
    expect(String((refused as Error).message)).toContain('with rubric verdicts among its items');
    expect(String((refused as Error).message)).toContain('no rubric verdicts (does not pass)');
    await writeAnchors(judge, [{ judge: 'lexical', kappa: 0.95, rubric: 20 }]);
    const set = await readJson(anchorSetFile(data, 'anchors'), metaAnchorSetSchema);
    await writeJson(anchorSetFile(data, 'anchors'), metaAnchorSetSchema, { ...set, rubric_item_count: 20 });
    const compared = await compareBenchRuns(runA, dir);
    expect(compared.anchor?.judges.map((j) => j.rubric_items)).toEqual([20, 20]);
  });

  it('refuses two runs that share no configuration', async () => {
    const other = await copyRun(runA, 'renamed', (run) => {
      for (const configuration of run.configurations as Array<{ name: string }>) configuration.name = 'other';
    });
    const error = await compareBenchRuns(runA, other).catch((caught: unknown) => caught);
    expect(exitCodeFor(error)).toBe(2);
    expect(String(error)).toMatch(/share no \(configuration, system\)/);
  });
});
