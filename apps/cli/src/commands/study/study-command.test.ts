import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { metricsSchema, RunLayout, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { copyOfflineDemo } from '@xsb/eval/testing';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { chromiumPath, chromiumUnavailableReason } from '@xsb/report/testing';
import { spearman } from '@xsb/stats';
import { startStudyServer } from '@xsb/study';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../../testing-cli';

const skipReason = chromiumUnavailableReason();
const SYSTEMS = ['xsb-baseline__audience_agnostic', 'xsb-baseline__audience_conditioned'];

let root: string;
let cleanup: () => Promise<void>;
let dataDir: string;
let studyDir: string;
let profile: string;
let browser: BrowserContext;

const run = (args: XsbArgs) => runXsb(args, { cwd: root, env: { PATH: process.env.PATH ?? '' } });

beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-study-cli-'));
  ({ dataDir } = await copyOfflineDemo(join(root, 'demo')));
  studyDir = join(root, 'study');
  if (skipReason) return;
  const { chromium } = await import('playwright-core');
  profile = await mkdtemp(join(tmpdir(), 'xsb-study-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
  });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await cleanup();
});

/** The ranking the page shows, best first. */
const rankingOf = (page: Page) =>
  page.$$eval('#ranking li', (items) =>
    items.map((item) => (item as unknown as { dataset: Record<string, string> }).dataset.label!),
  );

/** Opens the page with every request outside the study folder (or server) refused and counted. */
async function openPage(
  url: string,
  base: string,
): Promise<{ page: Page; errors: string[]; outside: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  const outside: string[] = [];
  await page.route('**/*', (route) => {
    const requested = route.request().url();
    if (requested.startsWith(base)) return route.continue();
    outside.push(requested);
    return route.abort();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(url);
  return { page, errors, outside };
}

describe('xsb study', () => {
  it('create: a blind sample with its key, slide images and page; refuses what it cannot do', async () => {
    const created = await run([
      'study',
      'create',
      '--data',
      dataDir,
      '--run',
      'demo',
      '--systems',
      SYSTEMS.join(','),
      '--sample',
      '2',
      '--seed',
      '3',
      '--out',
      'study',
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/study study-[0-9a-f]+: 2 cases × 2 decks in study\//);
    const study = JSON.parse(await readFile(join(studyDir, 'study.json'), 'utf8'));
    const key = JSON.parse(await readFile(join(studyDir, 'key.json'), 'utf8'));
    expect(study.cases).toHaveLength(2);
    for (const studyCase of study.cases) {
      expect(studyCase.decks.map((d: { label: string }) => d.label)).toEqual(['A', 'B']);
      expect(Object.values(key.cases[studyCase.case]).sort()).toEqual(SYSTEMS);
      for (const deck of studyCase.decks)
        for (const slide of deck.slides) expect(existsSync(join(studyDir, slide))).toBe(true);
    }
    // Nothing annotators see names a system, a file or a path.
    const shown = `${await readFile(join(studyDir, 'index.html'), 'utf8')}${JSON.stringify(study)}`;
    for (const secret of [
      'xsb-baseline',
      'audience_agnostic',
      'audience_conditioned',
      '.pptx',
      dataDir,
      root,
    ])
      expect(shown).not.toContain(secret);

    expect(
      (
        await run([
          'study',
          'create',
          '--data',
          dataDir,
          '--systems',
          SYSTEMS[0]!,
          '--sample',
          '2',
          '--out',
          'x',
        ])
      ).code,
    ).toBe(2);
    const again = await run([
      'study',
      'create',
      '--data',
      dataDir,
      '--systems',
      SYSTEMS.join(','),
      '--sample',
      '2',
      '--out',
      'study',
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds a study');
    const unknown = await run([
      'study',
      'create',
      '--data',
      dataDir,
      '--systems',
      'nope__x,xsb-baseline__audience_agnostic',
      '--sample',
      '1',
      '--out',
      'y',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no decks of "nope__x"');
    const badStrata = await run([
      'study',
      'create',
      '--data',
      dataDir,
      '--systems',
      SYSTEMS.join(','),
      '--sample',
      '1',
      '--strata',
      'topic',
      '--out',
      'z',
    ]);
    expect(badStrata.code).toBe(2);
    expect(badStrata.stderr).toContain('--strata must be scene or category');
    // By category: one case of the three (each its own category), from renders the first study already made.
    const byCategory = await run([
      'study',
      'create',
      '--data',
      dataDir,
      '--run',
      'demo',
      '--systems',
      SYSTEMS.join(','),
      '--sample',
      '1',
      '--strata',
      'category',
      '--out',
      'study-category',
    ]);
    expect(byCategory.code).toBe(0);
    const categoryStudy = JSON.parse(await readFile(join(root, 'study-category', 'study.json'), 'utf8'));
    expect(categoryStudy.sample).toEqual({ requested: 1, seed: 1, strata: 'category' });
    expect(categoryStudy.cases).toHaveLength(1);
  }, 240_000);

  it.skipIf(skipReason !== null)(
    'the page from file://: ranks by keyboard and by mouse, resumes after a reload, downloads what was done; import files it',
    async () => {
      const url = pathToFileURL(join(studyDir, 'index.html')).href;
      const { page, errors, outside } = await openPage(url, pathToFileURL(studyDir).href);
      const dom = await page.content();
      for (const secret of ['xsb-baseline', 'audience_agnostic', 'audience_conditioned', '.pptx'])
        expect(dom).not.toContain(secret);
      await page.fill('#annotator', 'ann-1');
      await page.click('#begin');
      await expect.poll(() => page.textContent('#progress')).toContain('Case 1 of 2');
      expect(await page.locator('.deck img').count()).toBe(2);
      expect(
        await page.$eval('.deck img', (img) => (img as unknown as { naturalWidth: number }).naturalWidth),
      ).toBe(960);
      // Keyboard: the first deck moves down one place.
      const before = await rankingOf(page);
      await page.focus('#ranking li:first-child');
      await page.keyboard.press('ArrowDown');
      const first = await rankingOf(page);
      expect(first).toEqual([before[1], before[0]]);
      await page.click('#next');
      await expect.poll(() => page.textContent('#progress')).toContain('Case 2 of 2');

      // A reload resumes where the annotator was.
      await page.reload();
      await expect.poll(() => page.textContent('#progress')).toContain('Case 2 of 2 · annotator ann-1');
      // Mouse: the last deck dragged above the first.
      const shownOrder = await rankingOf(page);
      await page.dragAndDrop('#ranking li:last-child', '#ranking li:first-child', {
        targetPosition: { x: 10, y: 2 },
      });
      const second = await rankingOf(page);
      expect(second).toEqual([shownOrder[1], shownOrder[0]]);
      await page.click('#next');
      await expect.poll(() => page.isVisible('#done')).toBe(true);

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
      expect(download.suggestedFilename()).toBe('ann-1.jsonl');
      const file = join(root, 'ann-1.jsonl');
      await download.saveAs(file);
      const study = JSON.parse(await readFile(join(studyDir, 'study.json'), 'utf8'));
      const lines = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => [line.case, line.ranking])).toEqual([
        [study.cases[0].case, first],
        [study.cases[1].case, second],
      ]);
      for (const line of lines) expect(line.seconds).toBeGreaterThanOrEqual(0);
      // Another annotator at the same browser starts afresh; the first one's answers stay theirs.
      await page.click('#review');
      await page.click('#switch');
      await page.fill('#annotator', 'someone-else');
      await page.click('#begin');
      await expect
        .poll(() => page.textContent('#progress'))
        .toContain('Case 1 of 2 · annotator someone-else');
      await page.click('#switch');
      await page.fill('#annotator', 'ann-1');
      await page.click('#begin');
      await expect.poll(() => page.textContent('#progress')).toContain('annotator ann-1');
      const [again] = await Promise.all([page.waitForEvent('download'), page.click('#download-partial')]);
      const againFile = join(root, 'ann-1-again.jsonl');
      await again.saveAs(againFile);
      expect(await readFile(againFile, 'utf8')).toBe(await readFile(file, 'utf8'));
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
      await page.close();

      // From inside the study folder, --study is not needed.
      const imported = await runXsb(['study', 'import', join(root, 'ann-1.jsonl')], {
        cwd: studyDir,
        env: { PATH: process.env.PATH ?? '', HOME: root },
      });
      expect(imported.code).toBe(0);
      expect(imported.stdout).toContain('ann-1: 2 answers');
      expect(await readFile(join(studyDir, 'annotations', 'ann-1.jsonl'), 'utf8')).toBe(
        `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
      );
    },
    120_000,
  );

  it.skipIf(skipReason !== null)(
    'the page over xsb view --study saves each answer into the study as the annotator goes',
    async () => {
      const server = await startStudyServer({ dir: studyDir, port: 0 });
      try {
        const { page, errors, outside } = await openPage(server.url, server.url);
        await page.fill('#annotator', 'ann-2');
        await page.click('#begin');
        const done: string[][] = [];
        for (const n of [1, 2]) {
          await expect.poll(() => page.textContent('#progress')).toContain(`Case ${n} of 2`);
          done.push(await rankingOf(page));
          await page.click('#next');
        }
        const saved = join(studyDir, 'annotations', 'ann-2.jsonl');
        await expect
          .poll(async () =>
            existsSync(saved) ? (await readFile(saved, 'utf8')).trim().split('\n').length : 0,
          )
          .toBe(2);
        const lines = (await readFile(saved, 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(lines.map((line) => line.ranking)).toEqual(done);
        await expect.poll(() => page.textContent('#save-status')).toContain('Saved 2 answers');
        expect(errors).toEqual([]);
        expect(outside).toEqual([]);
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it.skipIf(skipReason !== null)(
    'align: every evaluator with scores against both annotators, as an independent computation gives it',
    async () => {
      // The ranking judge (offline here) becomes an evaluator like the others.
      const ranked = await run(['rank', '--data', dataDir, '--run', 'demo', '--system', SYSTEMS.join(',')]);
      expect(ranked.code).toBe(0);
      expect(ranked.stdout).toMatch(/9 cases and audiences ranked by lexical \(offline judge/);
      const aligned = await run([
        'study',
        'align',
        '--study',
        'study',
        '--data',
        dataDir,
        '--run',
        'demo',
        '--json',
      ]);
      expect(aligned.code).toBe(0);
      const record = JSON.parse(aligned.stdout);
      expect(record.annotators).toEqual(['ann-1', 'ann-2']);
      expect(record.human_ceiling.n_cases).toBe(2);
      expect(record.kendall_w.n_cases).toBe(2);
      expect(existsSync(join(studyDir, 'align.json'))).toBe(true);
      expect(await readFile(join(studyDir, 'align.md'), 'utf8')).toContain('## Evaluators');
      const coverage = record.evaluators.find(
        (row: { evaluator: string }) => row.evaluator === 'xslides.coverage',
      );
      expect(coverage).toMatchObject({ family: 'xslides', judge: 'lexical', offline: true, n_cases: 2 });
      expect(record.evaluators.map((row: { evaluator: string }) => row.evaluator)).toContain(
        'layout.min_font_size',
      );
      expect(
        record.evaluators.find((row: { evaluator: string }) => row.evaluator === 'rank.listwise[lexical]'),
      ).toMatchObject({ family: 'rank', offline: true, n_cases: 2 });

      // By hand: each case's coverage per deck from metrics.json, ρ against each annotator, mean, then mean.
      const study = JSON.parse(await readFile(join(studyDir, 'study.json'), 'utf8'));
      const key = JSON.parse(await readFile(join(studyDir, 'key.json'), 'utf8'));
      const answers = await Promise.all(
        ['ann-1', 'ann-2'].map(async (annotator) =>
          (await readFile(join(studyDir, 'annotations', `${annotator}.jsonl`), 'utf8'))
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { case: string; ranking: string[] }),
        ),
      );
      const layout = new RunLayout(dataDir);
      const perCase: number[] = [];
      for (const studyCase of study.cases) {
        const labels = ['A', 'B'];
        const coverageOf = async (label: string) => {
          const [system, condition] = (key.cases[studyCase.case][label] as string).split('__');
          const dir = layout.evaluationDir({
            run: 'demo',
            system: system!,
            condition: condition!,
            audience: studyCase.audience,
            caseLabel: studyCase.case,
          });
          return (await readJson(join(dir, 'metrics.json'), metricsSchema)).coverage as number;
        };
        const scores = await Promise.all(labels.map(coverageOf));
        const rhos = answers.map((lines) => {
          const ranking = lines.find((line) => line.case === studyCase.case)!.ranking;
          return scores[0] === scores[1]
            ? 0
            : spearman(
                scores,
                labels.map((label) => -(ranking.indexOf(label) + 1)),
              )!;
        });
        perCase.push((rhos[0]! + rhos[1]!) / 2);
      }
      expect(coverage.spearman).toBeCloseTo((perCase[0]! + perCase[1]!) / 2, 12);

      // The HTML report of the alignment: offline-labelled, a point per evaluator, a row per evaluator, nothing fetched.
      const reported = await run(['report', '--html', '--study', 'study']);
      expect(reported.code).toBe(0);
      const html = join(studyDir, 'align.html');
      const { page, errors, outside } = await openPage(pathToFileURL(html).href, pathToFileURL(html).href);
      expect(await page.textContent('body')).toContain('offline judge');
      expect(await page.locator('#evaluator-table tbody tr').count()).toBe(record.evaluators.length);
      const marks = await page.$$eval('figure[data-plot] svg .role-mark', (groups) =>
        groups.reduce(
          (sum, group) => sum + (group as unknown as { children: { length: number } }).children.length,
          0,
        ),
      );
      expect(marks).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      expect(outside).toEqual([]);
    },
    120_000,
  );

  it.skipIf(skipReason !== null)(
    'align with a model judge adds the holistic baseline, asked once per deck (Anthropic wire format)',
    async () => {
      const server = await startFakeLlmServer({
        handler: (request) => {
          const learners = request.text.includes('For learners');
          return { text: `{"content": ${learners ? 5 : 2}, "design": 3, "coherence": ${learners ? 4 : 2}}` };
        },
      });
      try {
        const args = [
          'study',
          'align',
          '--study',
          'study',
          '--data',
          dataDir,
          '--run',
          'demo',
          '--judge',
          'anthropic:claude-holistic',
          '--json',
        ];
        const env = { PATH: process.env.PATH ?? '', ...fakeProviderEnv(server) };
        const aligned = await runXsb(args, { cwd: root, env });
        expect(aligned.code).toBe(0);
        const record = JSON.parse(aligned.stdout);
        expect(
          record.evaluators.find((row: { evaluator: string }) => row.evaluator === 'holistic.overall'),
        ).toMatchObject({
          family: 'holistic',
          judge: 'anthropic:claude-holistic',
          offline: false,
          n_cases: 2,
        });
        // One call per distinct deck of the study (2 cases × 2 decks), and none on a rerun: cached beside each deck.
        expect(server.requests).toHaveLength(4);
        expect(server.requests.every((request) => request.provider === 'anthropic')).toBe(true);
        expect((await runXsb(args, { cwd: root, env })).code).toBe(0);
        expect(server.requests).toHaveLength(4);
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it('rank --batch sends its asks through the provider batch API (OpenAI wire format) and files the answers', async () => {
    const server = await startFakeLlmServer({ handler: () => ({ text: '{"ranking": [1, 2]}' }) });
    try {
      const ranked = await runXsb(
        [
          'rank',
          '--data',
          dataDir,
          '--run',
          'demo',
          '--judge',
          'openai:gpt-rank',
          '--batch',
          '--system',
          SYSTEMS.join(','),
          '--case',
          'cs_raft_consensus',
          '--audience',
          'learners',
          '--k',
          '2',
          '--json',
        ],
        { cwd: root, env: { PATH: process.env.PATH ?? '', ...fakeProviderEnv(server) } },
      );
      expect(ranked.code).toBe(0);
      expect(ranked.stderr).toMatch(/batch \S+: submitted 2 requests/);
      expect(server.requests).toHaveLength(2);
      expect(server.requests.every((request) => request.batchId !== undefined)).toBe(true);
      const { records } = JSON.parse(ranked.stdout) as {
        records: Array<{ asks: Array<{ shown: string[]; answer: string[] }> }>;
      };
      expect(records).toHaveLength(1);
      for (const ask of records[0]!.asks) expect(ask.answer).toEqual(ask.shown);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('xsb plan rank prices exactly the asks xsb rank then makes (plan = run)', async () => {
    const flags = [
      '--data',
      dataDir,
      '--run',
      'demo',
      '--judge',
      'anthropic:claude-plan',
      '--system',
      SYSTEMS.join(','),
      '--case',
      'cs_raft_consensus',
      '--k',
      '2',
    ];
    const planned = await run(['plan', 'rank', ...flags, '--json']);
    expect(planned.code).toBe(0);
    const plan = JSON.parse(planned.stdout) as { rows: Array<{ stage: string; calls: number }> };
    const row = plan.rows.find((r) => r.stage === 'rank')!;
    expect(row.calls).toBe(3 * 2);
    const server = await startFakeLlmServer({ handler: () => ({ text: '{"ranking": [2, 1]}' }) });
    try {
      const env = { PATH: process.env.PATH ?? '', ...fakeProviderEnv(server) };
      expect((await runXsb(['rank', ...flags], { cwd: root, env })).code).toBe(0);
      expect(server.requests).toHaveLength(row.calls);
      // Done: planned again, every ask is reused and nothing is left to pay.
      const again = JSON.parse(
        (await runXsb(['plan', 'rank', ...flags, '--json'], { cwd: root, env })).stdout,
      ) as {
        rows: Array<{ stage: string; calls: number; reused_calls: number }>;
      };
      expect(again.rows.find((r) => r.stage === 'rank')).toMatchObject({ calls: 0, reused_calls: 6 });
    } finally {
      await server.close();
    }
  }, 120_000);
});
