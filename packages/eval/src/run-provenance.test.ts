import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, metricsSchema, type Probe, type ProgressReporter, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aggregateRun } from './aggregate-run';
import { runEvaluation } from './run-evaluation';
import { lexicalTestRun, makeDeck, writeEvalFixture } from './testing';

const SOURCE = `The library lends 4,000 books a month.
Opening hours grew to 60 hours a week in 2024.
Volunteers run the reading club every Thursday evening.`;

const probe = (id: string, answer: string): Probe => ({
  probe_id: id,
  source_case_id: 'library',
  scene: 'test',
  question: `What about ${id}?`,
  answer,
  evidence: [{ locator: 'p1', text: answer }],
  level: 2,
  modality: 'text',
  theme: 'evidence',
  metadata: { generator: 'lexical' },
});

const PROBES = [
  probe('pb_01', 'The library lends 4,000 books a month.'),
  probe('pb_02', 'Opening hours grew to 60 hours a week.'),
  probe('pb_03', 'Volunteers run the reading club on Thursdays.'),
];

const DECK = makeDeck([
  'Lending\nThe library lends 4,000 books a month',
  'Hours\n60 hours a week since 2024',
]);

/** Records every call a stage makes on its progress reporter. */
function recordingProgress() {
  const events: Array<[string, ...unknown[]]> = [];
  const reporter: ProgressReporter = {
    start: (label, total, options) => events.push(['start', label, total, options?.unit]),
    tick: (count = 1) => events.push(['tick', count]),
    skip: (count) => events.push(['skip', count]),
    grow: (count) => events.push(['grow', count]),
    finish: () => events.push(['finish']),
  };
  const sum = (kind: string) =>
    events.filter((e) => e[0] === kind).reduce((total, e) => total + (e[1] as number), 0);
  return { reporter, events, sum };
}

describe('stage 5 records what stands behind its numbers', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let dataDir: string;
  const { ledgerLines, options } = lexicalTestRun(() => dataDir, DECK);
  const evaluationDir = (system: string, condition: string, audience: string, caseLabel = 'library') =>
    join(dataDir, 'runs', 'r1', 'evaluations', system, condition, audience, caseLabel);

  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
    dataDir = join(dir, 'data');
    const deck = (system: string, condition: string, audience: string) => ({
      run: 'r1',
      system,
      condition,
      audience,
      caseLabel: 'library',
      file: 'deck.pptx',
      bytes: `${system}-${condition}-${audience}`,
    });
    await writeEvalFixture(dataDir, {
      cases: [
        {
          caseLabel: 'library',
          sourceText: SOURCE,
          probes: PROBES,
          weights: {
            learners: { pb_01: 1, pb_02: 1, pb_03: 0.6 },
            specialists: { pb_01: 1, pb_02: 0.3, pb_03: 1 },
          },
        },
      ],
      decks: [deck('gen', 'audience_agnostic', 'all'), deck('gen', 'audience_conditioned', 'learners')],
    });
    // the fixture's weights carry no judge: say which one made them, as stage 3 does
    for (const audience of ['learners', 'specialists']) {
      const file = join(dataDir, 'probes', 'library', 'weights', `${audience}.jsonl`);
      const rows = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      await writeFile(
        file,
        rows.map((row) => `${JSON.stringify({ ...row, metadata: { judge: 'lexical' } })}\n`).join(''),
      );
    }
  });
  afterEach(() => cleanup());

  it('writes the judges of every judged step into metrics.json', async () => {
    await runEvaluation(options());
    const metrics = await readJson(
      join(evaluationDir('gen', 'audience_agnostic', 'learners'), 'metrics.json'),
      metricsSchema,
    );
    expect(metrics.judges).toEqual(
      ['probes', 'weights', 'answerability', 'correctness'].map((stage) => ({
        stage,
        id: 'lexical',
        kind: 'offline',
      })),
    );
  });

  it('counts progress in judge calls: every call ticks once, reused work is skipped, the ETA total closes', async () => {
    const first = recordingProgress();
    await runEvaluation({ ...options(), progress: first.reporter });
    // 3 jobs (agnostic × 2 audiences, conditioned × 1), each 2 answerability batches + 1 claim extraction
    expect(first.events[0]).toEqual(['start', 'evaluate', 9, 'judge calls']);
    // every lexical call writes one ledger line: the ticks are exactly the calls made
    expect(first.sum('tick')).toBe(await ledgerLines());
    expect(first.sum('tick')).toBeGreaterThan(0);
    // the agnostic deck's correctness is computed once and served from the cache for its second audience
    expect(first.sum('skip')).toBeGreaterThanOrEqual(1);
    expect(first.sum('tick') + first.sum('skip')).toBe(9 + first.sum('grow'));

    const before = await ledgerLines();
    const second = recordingProgress();
    await runEvaluation({ ...options(), progress: second.reporter });
    expect(await ledgerLines()).toBe(before);
    expect(second.sum('tick')).toBe(0);
    expect(second.sum('skip')).toBe(9);
  });

  it('refuses filter values that name nothing, listing the known ones, before any work', async () => {
    await expect(runEvaluation({ ...options(), filters: { systems: ['gne'] } })).rejects.toMatchObject({
      kind: 'usage',
      message: 'unknown system "gne" in run "r1" (known: gen)',
    });
    await expect(runEvaluation({ ...options(), filters: { audiences: ['learner'] } })).rejects.toThrow(
      'unknown audience "learner" in run "r1" (known: learners, specialists)',
    );
    await expect(
      runEvaluation({
        ...options(),
        filters: { conditions: ['audience_conditioned'], audiences: ['specialists'] },
      }),
    ).rejects.toThrow(/no evaluation job of run "r1" matches all the filters at once/);
    expect(await ledgerLines()).toBe(0);
    const selected = await runEvaluation({ ...options(), filters: { audiences: ['specialists'] } });
    expect(selected.results.map((r) => `${r.job.condition}/${r.job.audience}`)).toEqual([
      'audience_agnostic/specialists',
    ]);
  });

  it('lists every job of the run without metrics in the summary, with the reason', async () => {
    await runEvaluation({
      ...options(),
      readDeck: async (file) => {
        if (file.includes('audience_conditioned')) throw new InputError('password-protected PDF', { file });
        return DECK;
      },
    });
    const compact = (audience: string) =>
      join(dataDir, 'runs', 'r1', 'metrics', 'gen__audience_agnostic', audience, 'library.json');
    // deleted: done, then its metrics (and their compact copy) removed
    await rm(join(evaluationDir('gen', 'audience_agnostic', 'specialists'), 'metrics.json'));
    await rm(compact('specialists'));
    // not run: a deck imported after the evaluation
    const late = join(dataDir, 'runs', 'r1', 'decks', 'late', 'audience_agnostic', 'all', 'library');
    await mkdir(late, { recursive: true });
    await writeFile(join(late, 'deck.pptx'), 'late deck');
    // undiscoverable: a deck folder holding no deck
    await mkdir(join(dataDir, 'runs', 'r1', 'decks', 'empty', 'audience_agnostic', 'all', 'library'), {
      recursive: true,
    });
    // incomplete: killed while being written (a rewrite removes status and metrics first)
    await rm(join(evaluationDir('gen', 'audience_agnostic', 'learners'), 'status.json'));
    await rm(join(evaluationDir('gen', 'audience_agnostic', 'learners'), 'metrics.json'));
    await rm(compact('learners'));

    const { summary } = await aggregateRun({ dataDir, run: 'r1' });
    const byWhere = Object.fromEntries(
      (summary.missing_jobs ?? []).map((job) => [job.where, { status: job.status, reason: job.reason }]),
    );
    const statusOf = (where: string) => byWhere[where]?.status;
    expect(statusOf('../evaluations/gen/audience_agnostic/learners/library')).toBe('incomplete');
    expect(statusOf('../evaluations/gen/audience_agnostic/specialists/library')).toBe('deleted');
    expect(byWhere['../evaluations/gen/audience_conditioned/learners/library']).toEqual({
      status: 'failed',
      reason: expect.stringContaining('password-protected PDF'),
    });
    expect(statusOf('../evaluations/late/audience_agnostic/learners/library')).toBe('not_run');
    expect(statusOf('../evaluations/late/audience_agnostic/specialists/library')).toBe('not_run');
    expect(statusOf('../decks/empty/audience_agnostic/all/library')).toBe('undiscoverable');
    expect(summary.missing_jobs).toHaveLength(6);
    expect(summary.row_count).toBe(0);
    const report = await readFile(join(dataDir, 'runs', 'r1', 'summary', 'report.md'), 'utf8');
    expect(report).toContain('- missing jobs: 6 evaluation jobs of the run have no metrics.json');
    expect(report).toMatch(
      /^- gen\/audience_conditioned\/learners\/library \(failed\): .*password-protected PDF \[\.\.\/evaluations\/gen\/audience_conditioned\/learners\/library\]$/m,
    );
  });
});
