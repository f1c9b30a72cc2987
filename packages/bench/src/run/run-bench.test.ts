import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exitCodeFor, probeSchema, RunLayout, readJsonlAll, readUtf8Text } from '@xsb/core';
import { formatDeckText, readDeck } from '@xsb/decks';
import { deckDesignCacheFile } from '@xsb/design';
import { buildAnswerabilityRequest, defaultFixturesDir } from '@xsb/eval';
import { replayKeyFor, replayPendingLineSchema, usageLedgerEntrySchema } from '@xsb/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchLayout } from '../bench-layout';
import { benchRowSchema } from '../schemas/bench-row';
import { makeFastTempDir, prepareBenchData } from '../testing';
import { compareBenchRun, readBenchRun, rerenderBenchReport } from './bench-run-files';
import { runBench } from './run-bench';

let root: string;
let cleanup: () => Promise<void>;
/** The demo's data folder (3 cases, lexical judges, every case in dev), prepared once. */
let lexicalData: string;
/** The demo made on its model code path from the committed replay store. */
let replayData: string;
const demoStore = join(defaultFixturesDir(), 'replay', 'demo.jsonl');
let copies = 0;

/** A copy of a prepared data folder; `fresh` drops every evaluation so the bench must judge again. */
async function copyOf(data: string, fresh = false): Promise<string> {
  copies += 1;
  const target = join(root, `copy${copies}`, 'data');
  await cp(data, target, { recursive: true });
  if (fresh) {
    const run = join(target, 'runs', 'demo');
    for (const part of ['evaluations', 'correctness_cache', 'metrics', 'summary', 'usage_ledger.jsonl'])
      await rm(join(run, part), { recursive: true, force: true });
  }
  return target;
}

const ledgerEntries = async (data: string) => {
  const file = new RunLayout(data).usageLedgerFile('demo');
  return existsSync(file) ? readJsonlAll(file, usageLedgerEntrySchema) : [];
};

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeFastTempDir());
  lexicalData = await prepareBenchData(join(root, 'lexical'));
  // Probes, weights and decks made on the model code path from the committed replay store.
  replayData = await prepareBenchData(join(root, 'replay'), { judge: `replay:${demoStore}` });
}, 240_000);
afterAll(() => cleanup());

describe('runBench', () => {
  it('refuses the sealed test split without --unseal-test and writes nothing', async () => {
    const data = await copyOf(lexicalData);
    for (const split of ['test', 'all'] as const) {
      const error = await runBench({ dataDir: data, pipelineRun: 'demo', split }).catch(
        (caught: unknown) => caught,
      );
      expect(exitCodeFor(error)).toBe(2);
      expect(error).toMatchObject({ code: 'sealed_split' });
      expect(String(error)).toMatch(/opens the sealed test split/);
    }
    const bench = new BenchLayout(data);
    expect(existsSync(bench.runsDir())).toBe(false);
    expect(existsSync(bench.testLedgerFile())).toBe(false);
  });

  it('makes exactly the distinct judge calls in a factorial, re-renders its report byte for byte and recomputes its comparisons', async () => {
    const data = await copyOf(lexicalData, true);
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      configs: 'factorial',
      factors: ['batch_size', 'weight_k', 'claims'],
      systems: ['xsb-baseline__audience_agnostic'],
      resamples: 300,
    });
    expect(result.run.status).toBe('done');
    expect(result.summary.configurations).toHaveLength(8);
    expect(result.rows).toHaveLength(8 * 9);
    expect(result.summary.rows.failed).toBe(0);
    // Independently: per deck, its batches at 12 and at 1 probe, plus one claim extraction and the
    // verification batches of its claims (claims on in half of the subsets, all sharing one cache entry).
    let expected = 0;
    const layout = new RunLayout(data);
    for (const caseLabel of result.run.cases) {
      const probes = (await readJsonlAll(layout.probesFile(caseLabel), probeSchema)).length;
      expected += Math.ceil(probes / 12) + probes;
      const rows = result.rows.filter((row) => row.case === caseLabel && row.configuration === 'F:claims');
      const correctness = JSON.parse(
        await readFile(join(data, rows[0]!.evaluation_dir!, 'correctness.json'), 'utf8'),
      ) as { claim_count: number };
      expected += 1 + Math.ceil(correctness.claim_count / 12);
    }
    const evalLines = (await ledgerEntries(data)).filter((entry) => entry.stage.startsWith('eval.')).length;
    expect(result.run.judge_calls).toEqual({
      measured: expected,
      distinct: expected,
      naive: expect.any(Number),
    });
    expect(evalLines).toBe(expected);
    expect(result.run.judge_calls!.naive).toBeGreaterThan(3 * expected);
    expect(result.report).toContain(
      `judge calls: ${expected} (distinct work ${expected}; a naive run per configuration`,
    );
    // Every subset changes what a folder holds (batch size, weights, correctness): eight folders, of
    // which F:claims is the default one, shared with xsb eval. Their judged rows are shared anyway.
    const folders = new Set(result.run.configurations.map((c) => c.evaluations_dir));
    expect(folders.size).toBe(8);
    expect(result.run.configurations.find((c) => c.name === 'F:claims')!.evaluations_dir).toBe(
      'runs/demo/evaluations',
    );

    const report = join(result.dir, 'report.md');
    const original = await readFile(report);
    await writeFile(report, 'damaged');
    await rerenderBenchReport(result.dir);
    expect(Buffer.compare(await readFile(report), original)).toBe(0);
    const { comparisons } = await compareBenchRun(result.dir);
    expect(comparisons).toEqual(result.summary.comparisons);
    // Shapley: stored per subset, and the values add up to v(all) − v(none).
    const shapley = result.summary.shapley!;
    expect(shapley.subsets).toHaveLength(8);
    const total = shapley.factors.reduce((sum, f) => sum + f.value!, 0);
    const value = (name: string) => shapley.subsets.find((s) => s.configuration === name)!.value!;
    expect(total).toBeCloseTo(value('F:batch_size+weight_k+claims') - value('F:none'), 12);
    const rows = await readJsonlAll(join(result.dir, 'per_row.jsonl'), benchRowSchema);
    expect(rows).toEqual(result.rows);
    // claims off: correctness and safe efficiency are null, never 0.
    expect(
      rows.filter((row) => row.configuration === 'F:none').every((row) => row.metrics!.correctness === null),
    ).toBe(true);
  }, 240_000);

  it('appends to the test ledger before the first judge call and prints the count', async () => {
    const data = await copyOf(lexicalData, true);
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      split: 'all',
      unsealTest: true,
      systems: ['notebooklm__audience_agnostic'],
      resamples: 200,
    });
    const ledger = (await readFile(new BenchLayout(data).testLedgerFile(), 'utf8')).trim().split('\n');
    expect(ledger).toHaveLength(1);
    const opening = JSON.parse(ledger[0]!) as {
      time: string;
      run_id: string;
      split: string;
      configurations: string[];
    };
    expect(opening).toMatchObject({ run_id: result.runId, split: 'all', configurations: ['default'] });
    const calls = await ledgerEntries(data);
    expect(calls.length).toBeGreaterThan(0);
    expect(Date.parse(opening.time)).toBeLessThanOrEqual(Date.parse(calls[0]!.time));
    expect(result.run.test_ledger_count).toBe(1);
    expect(result.report).toContain('test split opened 1 time');
  }, 120_000);

  it('leaves out of the default factors those the judge cannot serve, and names them with the reason', async () => {
    const data = await copyOf(lexicalData);
    const notices: string[] = [];
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      configs: 'loo',
      systems: ['notebooklm__audience_agnostic'],
      resamples: 200,
      onNotice: (line) => notices.push(line),
    });
    const leftOut = [
      {
        factor: 'judge_input',
        reason:
          'its "on" side sets judge_input=image (rendered slides) and the lexical judge cannot read images',
      },
    ];
    expect(result.run.factors).toEqual(['batch_size', 'weight_k', 'claims']);
    expect(result.run.left_out_factors).toEqual(leftOut);
    expect(result.summary.left_out_factors).toEqual(leftOut);
    expect(result.summary.configurations.map((c) => c.name)).toEqual([
      'full',
      '-batch_size',
      '-weight_k',
      '-claims',
    ]);
    expect(result.summary.rows).toEqual({ total: 12, failed: 0 });
    expect(notices).toEqual([
      'reference: notebooklm__audience_agnostic (the first of --systems)',
      `left out factor judge_input: ${leftOut[0]!.reason}`,
    ]);
    expect(result.report).toContain(
      `- left out factor \`judge_input\`: ${leftOut[0]!.reason} (not run: no rung, leave-one-out or Shapley value)`,
    );
    const stored = JSON.parse(await readFile(join(result.dir, 'summary.json'), 'utf8')) as {
      left_out_factors: unknown;
    };
    expect(stored.left_out_factors).toEqual(leftOut);
  }, 120_000);

  it('refuses a factor named explicitly that the judge cannot serve before any work (exit 2, nothing written)', async () => {
    const data = await copyOf(lexicalData);
    const yaml = join(root, 'image-factor.yaml');
    await writeFile(
      yaml,
      'factors:\n  slides:\n    on: {judge_input: image}\nconfigurations:\n  pictures: {judge_input: image}\n',
    );
    const attempts = [
      { configs: 'ladder', factors: ['judge_input'] },
      { configs: 'factorial', benchConfigFile: yaml },
      { configs: 'pictures', benchConfigFile: yaml },
    ];
    for (const attempt of attempts) {
      const error = await runBench({ dataDir: data, pipelineRun: 'demo', ...attempt }).catch(
        (caught: unknown) => caught,
      );
      expect(exitCodeFor(error), JSON.stringify(attempt)).toBe(2);
      expect(String(error)).toMatch(
        /judge_input=image \(rendered slides\) and the lexical judge cannot read images/,
      );
    }
    expect(existsSync(new BenchLayout(data).runsDir())).toBe(false);
  });

  it("pairs against the run sheet's first system by default, not the alphabetically first", async () => {
    const data = await copyOf(lexicalData);
    const notices: string[] = [];
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      resamples: 200,
      onNotice: (line) => notices.push(line),
    });
    // notebooklm (imported) sorts first; the demo's run sheet lists the baseline's agnostic decks first.
    expect(result.run.systems[0]).toBe('notebooklm__audience_agnostic');
    expect(result.run.reference).toBe('xsb-baseline__audience_agnostic');
    expect(result.run.reference_from).toBe('run_sheet');
    expect(notices).toEqual(["reference: xsb-baseline__audience_agnostic (the run sheet's first system)"]);
    expect(result.report).toContain(
      "reference: `xsb-baseline__audience_agnostic` (the run sheet's first system)",
    );
    const references = result.summary.comparisons.filter((c) => c.kind === 'reference');
    expect(references.length).toBeGreaterThan(0);
    expect(references.every((c) => c.a.system_id === 'xsb-baseline__audience_agnostic')).toBe(true);
  }, 120_000);

  it('record:STORE fails the rows and collects the prompts the pipeline really renders', async () => {
    const data = await copyOf(replayData, true);
    const store = join(root, 'recorded.jsonl');
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      judge: `record:${store}`,
      systems: ['xsb-baseline__audience_agnostic'],
      resamples: 200,
    });
    expect(result.rows.length).toBeGreaterThan(0);
    expect(result.rows.every((row) => row.error !== null && /prompt recorded as key/.test(row.error))).toBe(
      true,
    );
    expect(result.run.judges[0]).toMatchObject({ mode: 'record', replay_store: store, model_label: null });
    const pending = await readJsonlAll(join(root, 'recorded.pending.jsonl'), replayPendingLineSchema);
    // The first answerability batch of the Raft deck, rendered here independently of the run.
    const layout = new RunLayout(data);
    const deckFile = join(
      layout.deckDir({
        run: 'demo',
        system: 'xsb-baseline',
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel: 'cs_raft_consensus',
      }),
      'cs_raft_consensus.pptx',
    );
    const deck = await readDeck(deckFile);
    const request = buildAnswerabilityRequest({
      mode: 'text',
      deckText: formatDeckText(deck),
      slideImages: [],
      sourceContext: await readUtf8Text(layout.sourceContextFile('cs_raft_consensus')),
      probes: (await readJsonlAll(layout.probesFile('cs_raft_consensus'), probeSchema)).slice(0, 12),
    });
    expect(pending.map((line) => line.key)).toContain(replayKeyFor(request));
    expect(pending.every((line) => line.stage === 'eval.answerability')).toBe(true);
  }, 120_000);

  it('replay:STORE answers from the store; a miss fails only the rows that need it', async () => {
    const data = await copyOf(replayData, true);
    const full = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      judge: `replay:${demoStore}`,
      resamples: 200,
    });
    expect(full.summary.rows.failed).toBe(0);
    expect(full.run.judges[0]).toMatchObject({ mode: 'replay', model_label: 'xsb-demo-handwritten-judge' });
    expect(full.run.judge_calls!.measured).toBeGreaterThan(0);
    expect(full.report).toContain('model label xsb-demo-handwritten-judge');
    expect(full.report).not.toContain('Offline judge');

    // Drop the completion of the Raft agnostic deck's first answerability batch from a copy of the store.
    const layout = new RunLayout(data);
    const deckFile = join(
      layout.deckDir({
        run: 'demo',
        system: 'xsb-baseline',
        condition: 'audience_agnostic',
        audience: 'all',
        caseLabel: 'cs_raft_consensus',
      }),
      'cs_raft_consensus.pptx',
    );
    const deck = await readDeck(deckFile);
    const key = replayKeyFor(
      buildAnswerabilityRequest({
        mode: 'text',
        deckText: formatDeckText(deck),
        slideImages: [],
        sourceContext: await readUtf8Text(layout.sourceContextFile('cs_raft_consensus')),
        probes: (await readJsonlAll(layout.probesFile('cs_raft_consensus'), probeSchema)).slice(0, 12),
      }),
    );
    const lines = (await readFile(demoStore, 'utf8')).split('\n').filter(Boolean);
    const kept = lines.filter((line) => (JSON.parse(line) as { key: string }).key !== key);
    expect(kept.length).toBe(lines.length - 1);
    const partial = join(root, 'partial.jsonl');
    await writeFile(partial, `${kept.join('\n')}\n`);
    const again = await copyOf(replayData, true);
    const missing = await runBench({
      dataDir: again,
      pipelineRun: 'demo',
      judge: `replay:${partial}`,
      resamples: 200,
    });
    const failed = missing.rows.filter((row) => row.error !== null);
    expect(failed.length).toBeGreaterThan(0);
    expect(
      failed.every(
        (row) => row.case === 'cs_raft_consensus' && row.system_id === 'xsb-baseline__audience_agnostic',
      ),
    ).toBe(true);
    expect(failed[0]!.error).toMatch(/replay|no completion|key/i);
    expect(missing.rows.filter((row) => row.error === null).length).toBe(missing.rows.length - failed.length);
    expect(missing.rows.length - failed.length).toBeGreaterThan(10);
  }, 180_000);

  it('scores the rubric of a case whose instance id is the case label and compares its items', async () => {
    const data = await copyOf(lexicalData);
    const folder = join(data, 'rubric', 'cs_raft_consensus');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'material.md'), 'Raft notes.\n');
    await writeFile(
      join(folder, 'instance.yaml'),
      [
        'id: cs_raft_consensus',
        'category: academia',
        'language: en',
        'materials: [material.md]',
        'instruction: Make a talk of 3 to 12 slides.',
        'slide_range: {min: 3, max: 12}',
        'prefixes: {material_independent: "Judge.", material_dependent: "Judge with files."}',
        'checklists:',
        '  fundamentals: [{check: slide_count, params: {min_count: 3, max_count: 12}}, "Is there a title slide?"]',
        '  design: [{check: bullets_per_slide}]',
        '  completeness: [{check: empty_slide}]',
        '  correctness: [{check: language}]',
        '  fidelity: {template: "Is slide {slide} faithful to the material?"}',
      ].join('\n'),
    );
    const result = await runBench({ dataDir: data, pipelineRun: 'demo', resamples: 200 });
    const raft = result.rows.filter((row) => row.case === 'cs_raft_consensus');
    expect(result.run.input_failures).toEqual([]);
    expect(raft.map((row) => (row.rubric === null ? 'missing' : row.rubric.error))).toEqual(
      raft.map(() => null),
    );
    expect(raft[0]!.rubric!.items['fundamentals.1.2']).toBe('not_judged');
    expect(['yes', 'no']).toContain(raft[0]!.rubric!.items['fundamentals.1.1']);
    expect(
      result.rows.filter((row) => row.case !== 'cs_raft_consensus').every((row) => row.rubric === null),
    ).toBe(true);
    // Offline, the LLM items stay not_judged: the dimensions the checks decide have scores; a dimension
    // with an item not judged is n/a as the rubric shows it (fundamentals: 1 check judged, 1 question
    // not, is not the share of the judged one), and the paper total (which needs all five) is left out.
    expect(result.summary.metrics).toContain('rubric.design');
    expect(result.summary.metrics).not.toContain('rubric.fundamentals');
    expect(result.summary.metrics).not.toContain('rubric_total');
    expect(raft[0]!.rubric!.dimensions.fundamentals).toBeNull();
    expect(raft[0]!.rubric!.dimensions.design).not.toBeNull();
    expect(raft[0]!.rubric!.dimensions.fidelity).toBeNull();
    expect(Object.keys(result.run.digests.rubric_instances)).toEqual(['cs_raft_consensus']);
    expect(result.run.input_failures).toEqual([]);
    const rubricComparison = result.summary.comparisons.find((c) => c.metric === 'rubric.design');
    expect(rubricComparison).toMatchObject({ n_cases: 1, diag: true, verdict: expect.any(String) });
    expect(rubricComparison!.mcnemar).not.toBeNull();
  }, 120_000);

  it('keeps a new run folder per run and marks a dead running run interrupted', async () => {
    const data = await copyOf(lexicalData);
    const first = await runBench({ dataDir: data, pipelineRun: 'demo', resamples: 100 });
    const second = await runBench({ dataDir: data, pipelineRun: 'demo', resamples: 100 });
    expect(second.runId).not.toBe(first.runId);
    const { run } = await readBenchRun(first.dir);
    expect(run.status).toBe('done');
    // A record left `running` by a process that no longer exists.
    const stale = JSON.parse(await readFile(join(first.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(
      join(first.dir, 'run.json'),
      JSON.stringify({ ...stale, status: 'running', pid: 2 ** 22 + 7 }),
    );
    const { markInterruptedRuns } = await import('./run-record');
    expect(await markInterruptedRuns(new BenchLayout(data))).toEqual([first.runId]);
    expect((await readBenchRun(first.dir)).run).toMatchObject({ status: 'failed', reason: 'interrupted' });
  }, 120_000);

  it('with design on, measures each deck once and compares systems on its design metrics by case', async () => {
    const data = await copyOf(lexicalData);
    const systems = ['notebooklm__audience_agnostic', 'xsb-baseline__audience_agnostic'];
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      systems,
      design: true,
      resamples: 200,
    });
    expect(result.run.design).toBe(true);
    const scored = result.rows.filter((row) => row.error === null);
    expect(scored.length).toBeGreaterThan(4);
    for (const row of scored) {
      expect(row.design).toMatchObject({ error: null, colorfulness: expect.any(Number) });
      expect(row.design!.whitespace).toBeGreaterThan(0);
      // One measurement per deck, whatever the audience, cached beside it.
      const sameDeck = scored.filter((other) => other.deck === row.deck);
      expect(sameDeck.map((other) => other.design)).toEqual(sameDeck.map(() => row.design));
      expect(existsSync(deckDesignCacheFile(join(data, row.deck!)))).toBe(true);
    }
    expect(result.summary.metrics).toEqual(
      expect.arrayContaining(['design.colorfulness', 'design.whitespace']),
    );
    // Paired by case: the imported deck's one case is the only case both systems have.
    const whitespace = result.summary.comparisons.find((c) => c.metric === 'design.whitespace');
    expect(whitespace).toMatchObject({ n_cases: 1, diag: true, mcnemar: null });
    expect(whitespace!.mean_diff).not.toBe(0);
    expect(result.report).toContain('Design metrics (computed from the rendered slides with no judge');
    expect(result.report).toMatch(/\| system \| colorfulness \| contrast_min \|/);
    expect(result.report).not.toMatch(/\| system \| coverage .*design\./);
  }, 180_000);

  it('keeps a row whose deck cannot be rendered, with the reason in its design and every other metric', async () => {
    const data = await copyOf(lexicalData);
    const result = await runBench({
      dataDir: data,
      pipelineRun: 'demo',
      systems: ['notebooklm__audience_agnostic', 'xsb-baseline__audience_agnostic'],
      design: true,
      resamples: 100,
      env: { PATH: '' },
    });
    expect(result.run.rows.failed).toBe(0);
    const pptx = result.rows.filter((row) => row.deck!.endsWith('.pptx'));
    const pdf = result.rows.filter((row) => row.deck!.endsWith('.pdf'));
    expect(pptx.length).toBeGreaterThan(0);
    for (const row of pptx) {
      expect(row.design!.error).toMatch(/^design metrics: .*LibreOffice/);
      expect(row.design!.colorfulness).toBeNull();
      expect(row.metrics!.coverage).not.toBeNull();
    }
    for (const row of pdf) expect(row.design!.error).toBeNull();
  }, 120_000);
});
