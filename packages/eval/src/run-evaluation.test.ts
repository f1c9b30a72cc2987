import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  audienceWeightSchema,
  correctnessSchema,
  deckStatsSchema,
  metricsSchema,
  type Probe,
  ProviderError,
  probeSchema,
  probeScoreSchema,
  RunLayout,
  readJson,
  readJsonlAll,
  runManifestSchema,
} from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { aggregateMetrics, computeMetrics, rescoreRun, scanMetricFiles } from '@xsb/metrics';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvalJudge } from './eval-judge';
import { LexicalEvalJudge } from './eval-judge';
import { evaluateDeck } from './evaluate-deck';
import { runEvaluation } from './run-evaluation';
import { lexicalTestRun, makeDeck, writeEvalFixture } from './testing';

const SOURCE = `Heat pumps cut heating energy use by 48 percent in the pilot.
The pilot ran in 120 homes during the winter of 2023.
Installation cost averaged 9,500 dollars per home.
Noise complaints were rare and limited to older outdoor units.
Residents reported warmer bedrooms and lower bills.`;

function probe(id: string, question: string, answer: string, theme = 'evidence'): Probe {
  return {
    probe_id: id,
    source_case_id: 'pilot',
    scene: 'test',
    question,
    answer,
    evidence: [{ locator: 'p1', text: answer }],
    level: 2,
    modality: 'text',
    theme,
    metadata: {},
  };
}

const PROBES = [
  probe('pb_01', 'How much energy did heat pumps save?', 'Heating energy use fell by 48 percent.'),
  probe('pb_02', 'How many homes were in the pilot?', '120 homes took part.'),
  probe('pb_03', 'What did installation cost?', 'About 9,500 dollars per home.', 'implementation'),
  probe(
    'pb_04',
    'Were there noise complaints?',
    'Noise complaints were rare, limited to older outdoor units.',
    'limitations',
  ),
  probe('pb_05', 'What did residents report?', 'Warmer bedrooms and lower bills.'),
];

const WEIGHTS = {
  learners: { pb_01: 1, pb_02: 0.6, pb_03: 0.3, pb_04: 1, pb_05: 1 },
  decision_makers: { pb_01: 1, pb_02: 1, pb_03: 1, pb_04: 0.6, pb_05: 0.3 },
};

const DECK = makeDeck([
  'Heat pump pilot\nHeating energy use fell 48 percent',
  'Scale\n120 homes in winter 2023',
  'Costs\nInstallation cost 12,000 dollars per home',
]);

describe('runEvaluation (lexical judge)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let dataDir: string;
  const { ledgerLines, options } = lexicalTestRun(() => dataDir, DECK);

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    dataDir = join(dir, 'data');
    await writeEvalFixture(dataDir, {
      cases: [
        {
          caseLabel: 'pilot',
          sourceText: SOURCE,
          probes: PROBES,
          weights: WEIGHTS,
        },
      ],
      decks: [
        {
          run: 'r1',
          system: 'gen',
          condition: 'audience_agnostic',
          audience: 'all',
          caseLabel: 'pilot',
          file: 'deck.pptx',
          bytes: 'deck-a',
        },
        {
          run: 'r1',
          system: 'gen',
          condition: 'audience_conditioned',
          audience: 'learners',
          caseLabel: 'pilot',
          file: 'deck.pptx',
          bytes: 'deck-b',
        },
      ],
    });
  });
  afterEach(() => cleanup());

  it('finds the deck of a folder by the stage-4 rule: a PPTX beside its PDF export, several PPTX fail', async () => {
    const layout = new RunLayout(dataDir);
    const agnostic = layout.deckDir({
      run: 'r1',
      system: 'gen',
      condition: 'audience_agnostic',
      audience: 'all',
      caseLabel: 'pilot',
    });
    const conditioned = layout.deckDir({
      run: 'r1',
      system: 'gen',
      condition: 'audience_conditioned',
      audience: 'learners',
      caseLabel: 'pilot',
    });
    await writeFile(join(agnostic, 'deck.pdf'), 'pdf export of the same deck');
    await writeFile(join(conditioned, 'other.pptx'), 'a second deck');
    const read: string[] = [];
    const outcome = await runEvaluation({
      ...options(),
      readDeck: async (file: string) => {
        read.push(file);
        return DECK;
      },
    });
    expect(new Set(read)).toEqual(new Set([join(agnostic, 'deck.pptx')]));
    expect(outcome.discoveryFailures.map((f) => f.error.message)).toEqual([
      `${conditioned}: the deck folder holds several decks (deck.pptx, other.pptx); keep one`,
    ]);
  });

  it('refuses a weights file made for another probe bank instead of scoring against it', async () => {
    const layout = new RunLayout(dataDir);
    const extra = probe('pb_06', 'When did the pilot run?', 'During the winter of 2023.');
    await writeFile(
      layout.probesFile('pilot'),
      [...PROBES, extra]
        .map((row) => JSON.stringify(row))
        .join('\n')
        .concat('\n'),
    );
    const { results } = await runEvaluation(options());
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r.outcome === 'failed')).toBe(true);
    expect(results[0]!.error).toContain(
      'does not fit the current probe bank (it weights 5 probes but the bank has 6)',
    );
    expect(
      existsSync(
        join(
          layout.evaluationDir({
            run: 'r1',
            system: 'gen',
            condition: 'audience_conditioned',
            audience: 'learners',
            caseLabel: 'pilot',
          }),
          'metrics.json',
        ),
      ),
    ).toBe(false);
  });

  it('expands agnostic decks to every audience (metadata order) and writes every artifact of spec 000', async () => {
    const { results } = await runEvaluation(options());
    expect(results.map((r) => `${r.job.condition}/${r.job.audience}:${r.outcome}`)).toEqual([
      'audience_agnostic/learners:evaluated',
      'audience_agnostic/decision_makers:evaluated',
      'audience_conditioned/learners:evaluated',
    ]);
    // the agnostic deck's claims are verified once, then served from the cache for the second audience
    expect(results.map((r) => r.correctnessFromCache)).toEqual([false, true, false]);

    const layout = new RunLayout(dataDir);
    const evalDir = layout.evaluationDir({
      run: 'r1',
      system: 'gen',
      condition: 'audience_agnostic',
      audience: 'learners',
      caseLabel: 'pilot',
    });
    for (const name of [
      'deck_stats.json',
      'deck_visible_text.txt',
      'probe_scores.jsonl',
      'correctness.json',
      'metrics.json',
      'run_manifest.json',
      'status.json',
      'evaluate.log',
    ])
      expect(existsSync(join(evalDir, name)), name).toBe(true);
    expect(existsSync(join(evalDir, 'probe_scores.partial.jsonl'))).toBe(false);

    const scores = await readJsonlAll(join(evalDir, 'probe_scores.jsonl'), probeScoreSchema);
    expect(scores.map((s) => s.probe_id)).toEqual(PROBES.map((p) => p.probe_id));
    expect(scores.map((s) => s.covered)).toEqual([true, true, false, false, false]);
    expect(scores[1]!.cited_evidence).toBe('Slide 2');
    expect(scores[0]!.metadata).toMatchObject({ judge: 'lexical', judge_input_mode: 'text', batch: 0 });

    const correctness = await readJson(join(evalDir, 'correctness.json'), correctnessSchema);
    const costClaim = correctness.claims.find((c) => c.text.includes('12,000'))!;
    expect(costClaim.label).toBe('contradicted');
    expect(costClaim.slide_index).toBe(3);
    expect(correctness.correctness).toBeGreaterThan(0);
    expect(correctness.correctness).toBeLessThan(1);

    const stats = await readJson(join(evalDir, 'deck_stats.json'), deckStatsSchema);
    const metrics = await readJson(join(evalDir, 'metrics.json'), metricsSchema);
    const recomputed = computeMetrics({
      audience: 'learners',
      probes: await readJsonlAll(layout.probesFile('pilot'), probeSchema),
      weights: await readJsonlAll(layout.weightsFile('pilot', 'learners'), audienceWeightSchema),
      scores,
      slideCount: stats.slide_count,
      visibleWordCount: stats.visible_word_count,
      correctness: correctness.correctness,
    });
    expect(metrics.coverage).toBeCloseTo(recomputed.coverage!, 12);
    // learners include pb_01 (1), pb_04 (1), pb_05 (1) at tau 0.7; only pb_01 is covered
    expect(metrics.coverage).toBeCloseTo(1 / 3, 12);
    expect(metrics.safe_efficiency_time).toBeCloseTo(metrics.efficiency_time! * correctness.correctness!, 12);
    const compact = layout.compactMetricsFile('r1', 'gen__audience_agnostic', 'learners', 'pilot');
    expect(await readFile(compact, 'utf8')).toBe(await readFile(join(evalDir, 'metrics.json'), 'utf8'));
    // the manifest records the retriever actually installed
    const manifest = await readJson(join(evalDir, 'run_manifest.json'), runManifestSchema);
    const packageJson = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.versions).toMatchObject({ minisearch: packageJson.dependencies.minisearch });
  });

  it('evaluateDeck gives one deck held in memory the numbers of the file pipeline, with no data folder', async () => {
    await runEvaluation(options());
    const weights = Object.entries(WEIGHTS).flatMap(([audience, byProbe]) =>
      Object.entries(byProbe).map(([probe_id, utility_weight]) => ({
        probe_id,
        audience,
        utility_weight,
        reason: '',
      })),
    );
    const probes = PROBES.map(({ metadata: _defaulted, ...rest }) => rest);
    const one = await evaluateDeck({ deck: DECK, source: SOURCE, probes, weights, batchSize: 2 });
    expect(one).toMatchObject({ judge: 'lexical', mode: 'text' });
    const layout = new RunLayout(dataDir);
    for (const metrics of one.metrics) {
      const evalDir = layout.evaluationDir({
        run: 'r1',
        system: 'gen',
        condition: 'audience_agnostic',
        audience: metrics.audience,
        caseLabel: 'pilot',
      });
      const scores = await readJsonlAll(join(evalDir, 'probe_scores.jsonl'), probeScoreSchema);
      expect(one.scores).toEqual(
        scores.map((row) => ({
          ...row,
          metadata: { ...row.metadata, deck_sha256: expect.any(String), probes_sha256: expect.any(String) },
        })),
      );
      const correctness = await readJson(join(evalDir, 'correctness.json'), correctnessSchema);
      expect(one.correctness?.claims).toEqual(correctness.claims);
      const filed = await readJson(join(evalDir, 'metrics.json'), metricsSchema);
      // Who and where (judges, system, case) is the run's to record; every number must be the same.
      const { judges, system, system_id, condition, case_label, ...numbers } = filed;
      expect([judges, system, system_id, condition, case_label]).not.toContain(undefined);
      expect(metrics).toMatchObject(numbers);
    }
    expect(one.metrics.map((m) => m.audience)).toEqual(['learners', 'decision_makers']);
  });

  it('evaluateDeck names the row and field of a bad record, and judges nothing', async () => {
    const weights = [
      { probe_id: 'pb_01', audience: 'learners', utility_weight: 1, reason: '' },
      { probe_id: 'pb_02', audience: 'learners', utility_weight: 5, reason: '' },
    ];
    await expect(evaluateDeck({ deck: DECK, source: SOURCE, probes: PROBES, weights })).rejects.toThrow(
      expect.objectContaining({ code: 'validation', field: 'weights[1].utility_weight' }),
    );
  });

  it('makes no judge call when nothing changed, and recomputes metrics alone for a new tau_a', async () => {
    await runEvaluation(options());
    const before = await ledgerLines();
    expect(before).toBeGreaterThan(0);
    const again = await runEvaluation(options());
    expect(again.results.every((r) => r.outcome === 'reused')).toBe(true);
    expect(await ledgerLines()).toBe(before);

    const retuned = await runEvaluation({ ...options(), tauA: 0.5 });
    expect(await ledgerLines()).toBe(before);
    expect(retuned.results.every((r) => r.outcome === 'reused')).toBe(true);
    const layout = new RunLayout(dataDir);
    const evalDir = layout.evaluationDir({
      run: 'r1',
      system: 'gen',
      condition: 'audience_agnostic',
      audience: 'learners',
      caseLabel: 'pilot',
    });
    const metrics = await readJson(join(evalDir, 'metrics.json'), metricsSchema);
    expect(metrics.tau_a).toBe(0.5);
    expect(metrics.included_probe_count).toBe(4);
  });

  it('resumes from a partial score file without judging finished batches or duplicating rows', async () => {
    await runEvaluation({ ...options(), filters: { conditions: ['audience_conditioned'] } });
    const layout = new RunLayout(dataDir);
    const evalDir = layout.evaluationDir({
      run: 'r1',
      system: 'gen',
      condition: 'audience_conditioned',
      audience: 'learners',
      caseLabel: 'pilot',
    });
    const complete = await readFile(join(evalDir, 'probe_scores.jsonl'), 'utf8');
    const lines = complete.split('\n').filter(Boolean);
    // simulate a kill after batch 0 and half a line of batch 1
    await writeFile(
      join(evalDir, 'probe_scores.partial.jsonl'),
      `${lines[0]}\n${lines[1]}\n${lines[2]!.slice(0, 20)}`,
    );
    for (const name of ['probe_scores.jsonl', 'status.json', 'run_manifest.json'])
      await writeFile(join(evalDir, name), '');
    const resumed = await runEvaluation({ ...options(), filters: { conditions: ['audience_conditioned'] } });
    expect(resumed.results[0]).toMatchObject({ outcome: 'evaluated', reusedBatches: 1, judgedBatches: 2 });
    expect(await readFile(join(evalDir, 'probe_scores.jsonl'), 'utf8')).toBe(complete);
  });

  it('marks the judgments a judge left out as missing_judgment rows and logs invented ids', async () => {
    const lazyJudge: EvalJudge = {
      id: 'test:lazy',
      kind: 'model',
      capabilities: { readsImages: false, batch: false, promptCache: false },
      async judgeAnswerability(input) {
        const [first] = input.probes;
        return {
          judgments: input.probes.map((p) =>
            p === first
              ? {
                  probe_id: p.probe_id,
                  covered: true,
                  answer: 'x',
                  cited_evidence: 'Slide 1',
                  confidence: 0.9,
                }
              : { probe_id: p.probe_id, covered: false, answer: '', cited_evidence: '', confidence: 0 },
          ),
          missing: input.probes.slice(1).map((p) => p.probe_id),
          unknown: ['pb_99'],
        };
      },
      async extractClaims() {
        return [];
      },
      async verifyClaims() {
        return { verdicts: [], unknown: [] };
      },
    };
    const { results } = await runEvaluation({
      ...options(),
      judge: lazyJudge,
      filters: { conditions: ['audience_conditioned'] },
    });
    const log = await readFile(join(results[0]!.evaluationDir, 'evaluate.log'), 'utf8');
    expect(log).toContain('ignored judgments for unknown probe ids pb_99');
    expect(log).toContain('recorded as uncovered');
    const scores = await readJsonlAll(
      join(results[0]!.evaluationDir, 'probe_scores.jsonl'),
      probeScoreSchema,
    );
    // batches of 2: [pb_01, pb_02], [pb_03, pb_04], [pb_05]; the lazy judge answers only the first of each
    expect(scores.filter((s) => s.metadata.missing_judgment === true).map((s) => s.probe_id)).toEqual([
      'pb_02',
      'pb_04',
    ]);
    expect(scores.map((s) => s.covered)).toEqual([true, false, true, false, true]);
    const correctness = await readJson(
      join(results[0]!.evaluationDir, 'correctness.json'),
      correctnessSchema,
    );
    expect(correctness.correctness).toBeNull();
    const metrics = await readJson(join(results[0]!.evaluationDir, 'metrics.json'), metricsSchema);
    expect(metrics.safe_efficiency_time).toBeNull();
  });

  it('gives an off-topic deck null correctness with the reason, in correctness.json, metrics.json and the aggregate', async () => {
    const { results } = await runEvaluation({
      ...options(),
      readDeck: async () => makeDeck(['Box 1\nTest text', 'Box 2\nTest text', 'Box 3\nTest text']),
    });
    expect(results.every((r) => r.outcome === 'evaluated')).toBe(true);
    for (const result of results) {
      const correctness = await readJson(join(result.evaluationDir, 'correctness.json'), correctnessSchema);
      expect(correctness.claim_count).toBe(3);
      expect(correctness.correctness).toBeNull();
      expect(correctness.null_reason).toMatch(/^no claim of the deck touches the source/);
      const metrics = await readJson(join(result.evaluationDir, 'metrics.json'), metricsSchema);
      expect(metrics.correctness).toBeNull();
      expect(metrics.correctness_null_reason).toBe(correctness.null_reason);
      expect(metrics.safe_efficiency_time).toBeNull();
      expect(metrics.coverage).toBe(0);
    }
    const { rows, skipped } = await scanMetricFiles([join(dataDir, 'runs', 'r1', 'metrics')]);
    const summary = await aggregateMetrics(rows, skipped, { resamples: 50 });
    for (const group of summary.groups) {
      const correctness = group.metrics.find((m) => m.metric === 'correctness')!;
      expect(correctness).toMatchObject({ n: 0, null_count: group.row_count });
    }
  });

  it('fails (and records) each image-only job whose slides cannot be rendered, naming the deck', async () => {
    const imageJudge: EvalJudge = {
      ...new LexicalEvalJudge(),
      id: 'test:vision',
      kind: 'model',
      capabilities: { readsImages: true, batch: false, promptCache: false },
      judgeAnswerability: async () => ({ judgments: [], missing: [], unknown: [] }),
      extractClaims: async () => [],
      verifyClaims: async () => ({ verdicts: [], unknown: [] }),
    };
    const { results } = await runEvaluation({
      ...options(),
      judge: imageJudge,
      readDeck: async () => makeDeck(['', '', '']),
    });
    expect(results.every((r) => r.outcome === 'failed')).toBe(true);
    // the default renderer gets the placeholder bytes, which are no deck
    expect(results[0]!.error).toMatch(/deck\.pptx: not a deck/);
    const status = JSON.parse(await readFile(join(results[0]!.evaluationDir, 'status.json'), 'utf8'));
    expect(status.status).toBe('failed');
  });
  it('verifies an agnostic deck evaluated for three audiences once (the cache ignores the audience)', async () => {
    await writeEvalFixture(dataDir, {
      cases: [
        {
          caseLabel: 'trio',
          sourceText: SOURCE,
          probes: PROBES,
          weights: { learners: {}, specialists: {}, decision_makers: {} },
        },
      ],
      decks: [
        {
          run: 'r3',
          system: 'gen',
          condition: 'audience_agnostic',
          audience: 'all',
          caseLabel: 'trio',
          file: 'deck.pptx',
          bytes: 'deck-trio',
        },
      ],
    });
    const lexical = new LexicalEvalJudge();
    const calls = { extract: 0, verify: 0 };
    const counting: EvalJudge = {
      id: lexical.id,
      kind: 'offline',
      capabilities: { readsImages: false, batch: false, promptCache: false },
      judgeAnswerability: (input) => lexical.judgeAnswerability(input),
      extractClaims: (input) => {
        calls.extract += 1;
        return lexical.extractClaims(input);
      },
      verifyClaims: (items) => {
        calls.verify += 1;
        return lexical.verifyClaims(items);
      },
    };
    const { results } = await runEvaluation({
      ...options(),
      run: 'r3',
      judge: counting,
      claims: { verify_batch_size: 2 },
    });
    expect(results.map((r) => r.job.audience)).toEqual(['learners', 'specialists', 'decision_makers']);
    expect(results.map((r) => r.correctnessFromCache)).toEqual([false, true, true]);
    const files = results.map((r) => join(r.evaluationDir, 'correctness.json'));
    const correctness = await readJson(files[0]!, correctnessSchema);
    expect(calls.extract).toBe(1);
    expect(calls.verify).toBe(Math.ceil(correctness.claim_count / 2));
    for (const file of files) expect(await readFile(file, 'utf8')).toBe(await readFile(files[0]!, 'utf8'));
  });

  it('keeps the batches in flight when another batch fails, so a re-run judges only what is missing', async () => {
    let failing = true;
    const judged: string[] = [];
    const flaky: EvalJudge = {
      id: 'test:flaky',
      kind: 'model',
      capabilities: { readsImages: false, batch: false, promptCache: false },
      async judgeAnswerability(input) {
        const ids = input.probes.map((p) => p.probe_id);
        if (failing && ids.includes('pb_03')) throw new ProviderError('test', 'provider unavailable (test)');
        await new Promise((resolve) => setTimeout(resolve, 20));
        judged.push(...ids);
        return new LexicalEvalJudge().judgeAnswerability(input);
      },
      extractClaims: async () => [],
      verifyClaims: async () => ({ verdicts: [], unknown: [] }),
    };
    const run = () =>
      runEvaluation({ ...options(), judge: flaky, filters: { conditions: ['audience_conditioned'] } });
    const failed = await run();
    expect(failed.results[0]).toMatchObject({ outcome: 'failed' });
    expect(failed.results[0]!.error).toContain('provider unavailable');
    const partial = await readFile(
      join(failed.results[0]!.evaluationDir, 'probe_scores.partial.jsonl'),
      'utf8',
    );
    expect(
      partial
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).probe_id),
    ).toEqual(expect.arrayContaining(['pb_01', 'pb_02', 'pb_05']));
    failing = false;
    judged.length = 0;
    const resumed = await run();
    expect(resumed.results[0]).toMatchObject({ outcome: 'evaluated', judgedBatches: 1, reusedBatches: 2 });
    expect(judged).toEqual(['pb_03', 'pb_04']);
  });

  it('refuses to recompute metrics from a probe bank that changed after the evaluation', async () => {
    await runEvaluation({ ...options(), filters: { conditions: ['audience_conditioned'] } });
    const layout = new RunLayout(dataDir);
    const probesFile = layout.probesFile('pilot');
    await writeFile(probesFile, `${JSON.stringify({ ...PROBES[0]!, probe_id: 'pb_new' })}\n`, { flag: 'a' });
    const { rows, failures } = await rescoreRun(layout, 'r1');
    expect(rows).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toContain(probesFile);
    expect(failures[0]!.message).toContain('changed since this evaluation');
  });
  it('reuses score rows only when the judge id and the judge input mode match', async () => {
    const lexical = new LexicalEvalJudge();
    const vision = (id: string): EvalJudge => ({
      id,
      kind: 'model',
      capabilities: { readsImages: true, batch: false, promptCache: false },
      judgeAnswerability: (input) => lexical.judgeAnswerability(input),
      extractClaims: (input) => lexical.extractClaims(input),
      verifyClaims: (items) => lexical.verifyClaims(items),
    });
    const run = (judge: EvalJudge, imageModeWordsPerSlide?: number) =>
      runEvaluation({
        ...options(),
        judge,
        filters: { conditions: ['audience_conditioned'] },
        renderSlides: async () => [],
        ...(imageModeWordsPerSlide ? { imageModeWordsPerSlide } : {}),
      });
    expect((await run(vision('test:a'))).results[0]).toMatchObject({ judgedBatches: 3 });
    // a changed setting re-runs the job; the same judge and mode reuse every row
    expect((await run(vision('test:a'), 2)).results[0]).toMatchObject({ judgedBatches: 0, reusedBatches: 3 });
    // another judge id: nothing reused
    expect((await run(vision('test:b'), 2)).results[0]).toMatchObject({ judgedBatches: 3, reusedBatches: 0 });
    // the same judge, now in image mode (the deck counts as sparse): nothing reused
    const imageRun = await run(vision('test:b'), 1000);
    expect(imageRun.results[0]).toMatchObject({ outcome: 'evaluated', judgedBatches: 3, reusedBatches: 0 });
    const scores = await readJsonlAll(
      join(imageRun.results[0]!.evaluationDir, 'probe_scores.jsonl'),
      probeScoreSchema,
    );
    expect(scores.every((row) => row.metadata.judge_input_mode === 'image')).toBe(true);
  });
  it('leaves no metrics of older inputs behind when a re-evaluation fails', async () => {
    const filters = { conditions: ['audience_conditioned'] };
    const first = await runEvaluation({ ...options(), filters });
    const evalDir = first.results[0]!.evaluationDir;
    const compact = new RunLayout(dataDir).compactMetricsFile(
      'r1',
      'gen__audience_conditioned',
      'learners',
      'pilot',
    );
    expect(existsSync(join(evalDir, 'metrics.json'))).toBe(true);
    expect(existsSync(compact)).toBe(true);
    const down: EvalJudge = {
      id: 'test:down',
      kind: 'model',
      capabilities: { readsImages: false, batch: false, promptCache: false },
      judgeAnswerability: async () => {
        throw new ProviderError('test', 'provider unavailable (test)');
      },
      extractClaims: async () => [],
      verifyClaims: async () => ({ verdicts: [], unknown: [] }),
    };
    const failed = await runEvaluation({ ...options(), judge: down, filters });
    expect(failed.results[0]!.outcome).toBe('failed');
    expect(existsSync(join(evalDir, 'metrics.json'))).toBe(false);
    expect(existsSync(compact)).toBe(false);
    const { rows } = await scanMetricFiles([join(dataDir, 'runs', 'r1')]);
    expect(rows).toEqual([]);
  });

  it('evaluates a variant (other settings) in its own folder, leaving the default results and stage 7 untouched', async () => {
    const first = await runEvaluation(options());
    expect(first.results.map((r) => r.outcome)).toEqual(['evaluated', 'evaluated', 'evaluated']);
    const runDir = join(dataDir, 'runs', 'r1');
    const before = await scanMetricFiles([runDir]);
    const compactBefore = await readFile(
      join(runDir, 'metrics', 'gen__audience_agnostic', 'learners', 'pilot.json'),
      'utf8',
    );
    // batch size 1, no correctness, weights of k = 1: a variant folder, no compact copy.
    const donorsSeen: string[][] = [];
    const streamed: string[] = [];
    const variant = await runEvaluation({
      ...options(),
      variant: 'abc123',
      batchSize: 1,
      correctness: false,
      weightsK: 1,
      ensureWeights: undefined,
      scoreDonors: (job) => {
        const dirs = ['learners', 'decision_makers'].map((audience) =>
          join(runDir, 'evaluations@abc123', job.system, job.condition, audience, job.caseLabel),
        );
        donorsSeen.push(dirs);
        return dirs;
      },
      onResult: (result) => {
        streamed.push(`${result.job.condition}/${result.job.audience}`);
      },
    });
    expect(variant.results.map((r) => r.outcome)).toEqual(['evaluated', 'evaluated', 'evaluated']);
    expect(streamed).toEqual([
      'audience_agnostic/learners',
      'audience_agnostic/decision_makers',
      'audience_conditioned/learners',
    ]);
    expect(
      variant.results.every((r) => r.evaluationDir.includes(`${join('r1', 'evaluations@abc123')}`)),
    ).toBe(true);
    // The agnostic deck's second audience reused the first audience's rows (same deck, bank, batch size).
    expect(variant.results.map((r) => r.judgedBatches)).toEqual([5, 0, 5]);
    const dir = variant.results[0]!.evaluationDir;
    expect(existsSync(join(dir, 'correctness.json'))).toBe(false);
    const manifest = await readJson(join(dir, 'run_manifest.json'), runManifestSchema);
    expect(manifest.judges).toEqual({ answerability: 'lexical' });
    expect(manifest.settings).toMatchObject({ batch_size: 1, correctness: 'off' });
    expect(manifest.inputs.find((input) => input.role === 'weights')!.path).toBe(
      join('probes', 'pilot', 'weights@k1', 'learners.jsonl'),
    );
    const metrics = await readJson(join(dir, 'metrics.json'), metricsSchema);
    expect(metrics.correctness).toBeNull();
    expect(metrics.safe_efficiency_time).toBeNull();
    // The default evaluation and its compact copy are as they were; stage 7 does not see the variant.
    expect(
      await readFile(join(runDir, 'metrics', 'gen__audience_agnostic', 'learners', 'pilot.json'), 'utf8'),
    ).toBe(compactBefore);
    const after = await scanMetricFiles([runDir]);
    expect(after.rows.map((row) => row.file)).toEqual(before.rows.map((row) => row.file));
    expect(after.duplicates).toEqual(before.duplicates);
    const again = await runEvaluation(options());
    expect(again.results.map((r) => r.outcome)).toEqual(['reused', 'reused', 'reused']);
  });

  it('fails every job loudly when image input is asked of a judge that cannot read images', async () => {
    const { results } = await runEvaluation({ ...options(), variant: 'img', judgeInput: 'image' });
    expect(results.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(results[0]!.error).toMatch(/judge input "image"\), but the lexical judge cannot read images/);
  });
});
