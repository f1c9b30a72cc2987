import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JudgeDescriptor, MissingJob } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeJudge, mergeJudges, OFFLINE_JUDGE_WARNING } from './describe-judges';
import { runAggregation } from './run-aggregation';
import { writeCompactMetrics } from './testing';

const lexical = (stage: string): JudgeDescriptor => ({ stage, id: 'lexical', kind: 'offline' });
const replay: JudgeDescriptor[] = ['answerability', 'correctness'].map((stage) => ({
  stage,
  id: 'replay:stores/demo.jsonl',
  kind: 'replay',
  replay_store: 'stores/demo.jsonl',
  model_label: 'claude-sonnet-4-5',
}));

/** A compact row resting on 12 probes with a correctness of 0.9, unless `values` says otherwise. */
const writeRow = (
  root: string,
  systemId: string,
  audience: string,
  caseLabel: string,
  values: Record<string, unknown>,
) =>
  writeCompactMetrics(root, systemId, audience, caseLabel, {
    included_probe_count: 12,
    available_utility: 10,
    recovered_utility: 5,
    correctness: 0.9,
    ...values,
  });

describe('what stands behind each number in the summary', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  it('opens the report with the judges, tau_a and the bootstrap, and warns about offline judges', async () => {
    const root = join(dir, 'metrics');
    const judges = ['probes', 'weights', 'answerability', 'correctness'].map(lexical);
    for (const c of ['c1', 'c2', 'c3'])
      await writeRow(root, 'gen__audience_agnostic', 'learners', c, { judges });
    const out = join(dir, 'out');
    const { summary } = await runAggregation([root], out, { seed: 7, resamples: 200 });
    expect(summary.judges).toEqual(judges);
    expect(summary.offline_judges).toBe(true);
    expect(summary.offline_warning).toBe(OFFLINE_JUDGE_WARNING);
    expect(summary.tau_a).toEqual([0.7]);
    expect(summary.rows_without_judges).toBe(0);
    expect(summary.groups[0]).toMatchObject({ offline_judges: true, thin: false, tau_a: [0.7] });

    const report = (await readFile(join(out, 'report.md'), 'utf8')).split('\n');
    expect(report.slice(0, 6)).toEqual([
      '# xsb results',
      '',
      '- judges: `lexical` (offline, no model) for probes, weights, answerability, correctness',
      '- tau_a: 0.7; bootstrap: 200 resamples, seed 7, 95% percentile interval',
      `- WARNING: ${OFFLINE_JUDGE_WARNING}`,
      `- missing jobs: unknown (${summary.missing_jobs_note})`,
    ]);
    const csv = (await readFile(join(out, 'summary.csv'), 'utf8')).split('\n');
    expect(csv[1]).toContain(
      ',0.7,probes=lexical;weights=lexical;answerability=lexical;correctness=lexical,true,7,200,12,12,12,false,',
    );
  });

  it('names the replay store and its model label, and says nothing about offline judges for model judges', async () => {
    const root = join(dir, 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', { judges: replay });
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c2', {});
    const { summary } = await runAggregation([root], join(dir, 'out'));
    expect(summary.offline_judges).toBe(false);
    expect(summary.offline_warning).toBeNull();
    expect(summary.rows_without_judges).toBe(1);
    const report = await readFile(join(dir, 'out', 'report.md'), 'utf8');
    expect(report).toContain(
      '- judges: `replay:stores/demo.jsonl` (replay store stores/demo.jsonl, model label claude-sonnet-4-5) ' +
        'for answerability, correctness; 1 row records no judge',
    );
    expect(report).not.toContain('WARNING');
  });

  it('reports the probes behind each group and marks a group whose median deck has fewer than 10 as thin', async () => {
    const root = join(dir, 'metrics');
    for (const [c, count] of [
      ['c1', 3],
      ['c2', 5],
      ['c3', 30],
    ] as const)
      await writeRow(root, 'small__audience_agnostic', 'learners', c, { included_probe_count: count });
    for (const [c, count] of [
      ['c1', 9],
      ['c2', 12],
      ['c3', 40],
    ] as const)
      await writeRow(root, 'large__audience_agnostic', 'learners', c, { included_probe_count: count });
    const { summary } = await runAggregation([root], join(dir, 'out'));
    const [large, small] = summary.groups;
    expect(large).toMatchObject({ included_probe_count: { min: 9, median: 12, max: 40 }, thin: false });
    expect(small).toMatchObject({ included_probe_count: { min: 3, median: 5, max: 30 }, thin: true });
    const report = await readFile(join(dir, 'out', 'report.md'), 'utf8');
    expect(report).toContain('- thin: 1 of 2 groups rest on a median of fewer than 10 probes per deck');
    expect(report).toMatch(/\| large__audience_agnostic \| 3 \| 12 \(9–40\) \| .* \| {2}\|\n/);
    expect(report).toMatch(
      /\| small__audience_agnostic \| 3 \| 5 \(3–30\) \| .* \| thin: median 5 probes\/deck < 10 \|/,
    );
    const csv = await readFile(join(dir, 'out', 'summary.csv'), 'utf8');
    expect(csv).toMatch(/^small__audience_agnostic,.*,coverage,.*,3,5,30,true,$/m);
  });

  it("shows a metric's own n when it was averaged over fewer decks than its neighbour", async () => {
    const root = join(dir, 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', { coverage: 0.4 });
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c2', { coverage: 0.6 });
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c3', {
      coverage: null,
      coverage_null_reason: 'no weight reaches tau_a',
    });
    const { summary } = await runAggregation([root], join(dir, 'out'));
    const report = await readFile(join(dir, 'out', 'report.md'), 'utf8');
    const row = report.split('\n').find((line) => line.startsWith('| gen__audience_agnostic | 3 |'))!;
    const cells = row.split(' | ');
    // coverage over 2 decks says so; correctness over all 3 needs no note
    expect(cells[3]).toMatch(/^0\.500 \[0\.\d{3}, 0\.\d{3}\] \(n=2\)$/);
    expect(cells[7]).toBe('0.900 [0.900, 0.900]');
    expect(summary.groups[0]!.metrics.find((m) => m.metric === 'coverage')).toMatchObject({
      n: 2,
      null_count: 1,
    });
  });

  it('flags groups of one table that cover different case sets, naming the missing cases', async () => {
    const root = join(dir, 'metrics');
    const cases = Array.from({ length: 8 }, (_, i) => `case_${i + 1}`);
    for (const c of cases) await writeRow(root, 'full__audience_agnostic', 'learners', c, {});
    await writeRow(root, 'partial__audience_agnostic', 'learners', 'case_1', {});
    await writeRow(root, 'partial__audience_agnostic', 'specialists', 'case_1', {});
    await writeRow(root, 'other__audience_agnostic', 'learners', 'case_2', {});
    for (const c of cases.slice(0, 7)) await writeRow(root, 'other__audience_agnostic', 'learners', c, {});
    const { summary } = await runAggregation([root], join(dir, 'out'));
    const byId = (id: string, audience = 'learners') =>
      summary.groups.find((g) => g.system_id === id && g.audience === audience)!;
    expect(byId('full__audience_agnostic').missing_cases).toEqual([]);
    expect(byId('other__audience_agnostic').missing_cases).toEqual(['case_8']);
    expect(byId('partial__audience_agnostic').missing_cases).toEqual(cases.slice(1));
    // alone in its table: nothing to compare with
    expect(byId('partial__audience_agnostic', 'specialists').missing_cases).toEqual([]);
    const report = await readFile(join(dir, 'out', 'report.md'), 'utf8');
    expect(report).toContain('n differs: case case_8 missing for system other__audience_agnostic');
    expect(report).toContain(
      'n differs: cases case_2, case_3, case_4, case_5, case_6 and 2 more missing for system partial__audience_agnostic',
    );
  });

  it('says when rows were scored at different tau_a values', async () => {
    const root = join(dir, 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', { tau_a: 0.6 });
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c2', {});
    const { summary } = await runAggregation([root], join(dir, 'out'));
    expect(summary.tau_a).toEqual([0.6, 0.7]);
    const report = await readFile(join(dir, 'out', 'report.md'), 'utf8');
    expect(report).toContain('- tau_a: 0.6, 0.7 (MIXED');
    expect(report).toContain('tau_a mixed: 0.6, 0.7');
  });

  it('lists the missing jobs it is given, with paths relative to the summary folder', async () => {
    const root = join(dir, 'run', 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', {});
    const missing: MissingJob[] = [
      {
        system: 'gen',
        condition: 'audience_agnostic',
        audience: 'learners',
        case_label: 'c2',
        status: 'failed',
        reason: 'password-protected PDF',
        where: join(dir, 'run', 'evaluations', 'gen', 'audience_agnostic', 'learners', 'c2'),
      },
    ];
    const out = join(dir, 'run', 'summary');
    const { summary } = await runAggregation([root], out, { missingJobs: missing });
    expect(summary.missing_jobs).toEqual([
      { ...missing[0], where: '../evaluations/gen/audience_agnostic/learners/c2' },
    ]);
    expect(summary.missing_jobs_note).toBeUndefined();
    const report = await readFile(join(out, 'report.md'), 'utf8');
    expect(report).toContain('- missing jobs: 1 evaluation job of the run has no metrics.json');
    expect(report).toContain(
      '- gen/audience_agnostic/learners/c2 (failed): password-protected PDF [../evaluations/gen/audience_agnostic/learners/c2]',
    );
    const none = await runAggregation([root], out, { missingJobs: [] });
    expect(none.summary.missing_jobs).toEqual([]);
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain('- missing jobs: none');
  });

  it('names each case whose probe bank is empty in summary.json and report.md', async () => {
    const root = join(dir, 'run', 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', {});
    const out = join(dir, 'run', 'summary');
    const { summary } = await runAggregation([root], out, { emptyProbeBanks: ['paper4'] });
    expect(summary.empty_probe_banks).toEqual(['paper4']);
    const report = await readFile(join(out, 'report.md'), 'utf8');
    expect(report).toContain('- case paper4: 0 probes, contributes no coverage');
    const unknown = await runAggregation([root], out, {});
    expect(unknown.summary.empty_probe_banks).toBeUndefined();
    expect(await readFile(join(out, 'report.md'), 'utf8')).not.toContain('0 probes');
  });

  it('repeats the notes on probe banks whose questions are not in the source language', async () => {
    const root = join(dir, 'run', 'metrics');
    await writeRow(root, 'gen__audience_agnostic', 'learners', 'c1', {});
    const out = join(dir, 'run', 'summary');
    const note =
      'case c1: questions use en templates (no templates for "nl"; metadata.template_language says so per probe)';
    const { summary } = await runAggregation([root], out, { probeLanguageNotes: [note] });
    expect(summary.probe_language_notes).toEqual([note]);
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain(`- ${note}`);
  });
});

describe('judge descriptors', () => {
  it('reads the kind, model and store from a recorded judge id', () => {
    expect(describeJudge('answerability', 'lexical')).toEqual({
      stage: 'answerability',
      id: 'lexical',
      kind: 'offline',
    });
    expect(describeJudge('weights', 'anthropic:claude-sonnet-4-5')).toEqual({
      stage: 'weights',
      id: 'anthropic:claude-sonnet-4-5',
      kind: 'model',
      model: 'claude-sonnet-4-5',
    });
    expect(describeJudge('probes', 'record:s.jsonl', { 'record:s.jsonl': 'gpt-x' })).toEqual({
      stage: 'probes',
      id: 'record:s.jsonl',
      kind: 'record',
      replay_store: 's.jsonl',
      model_label: 'gpt-x',
    });
    expect(describeJudge('answerability', 'my-judge')).toMatchObject({ kind: 'model', model: 'my-judge' });
  });

  it('deduplicates by stage and id in pipeline order, keeping a known model label', () => {
    const unlabelled = { ...replay[0]!, model_label: undefined } as JudgeDescriptor;
    delete unlabelled.model_label;
    const merged = mergeJudges([
      [replay[1]!, unlabelled],
      [lexical('probes'), replay[0]!],
    ]);
    expect(merged.map((j) => j.stage)).toEqual(['probes', 'answerability', 'correctness']);
    expect(merged[1]!.model_label).toBe('claude-sonnet-4-5');
  });
});
