import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { createLlmClient, judgeFromClient } from '@xsb/llm';
import { fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { describe, expect, it } from 'vitest';
import { evaluationFilesFor, findInstances, judgeSlug, runRubric } from './run-rubric';
import { writeLayoutFixtureDecks } from './write-layout-fixture-decks';

const DATA = join(__dirname, '../../../fixtures/rubric/presentbench-layout/data');
const FIXTURES = join(__dirname, '../../../fixtures/rubric');

describe('runRubric over a PresentBench layout', () => {
  it('evaluates found decks, records failing cases as rows, reuses finished work', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-rubric-run-');
    const server = await startFakeLlmServer({ handler: () => ({ text: 'Fine. \\boxed{yes}' }) });
    try {
      const decks = await writeLayoutFixtureDecks(dir);
      const resultDir = join(
        dir,
        'results/education/Computer_science_lectures/ch1_bits/generation_task/results',
      );
      await mkdir(resultDir, { recursive: true });
      await copyFile(decks.clean, join(resultDir, 'slides.pptx'));
      const client = createLlmClient('openai:gpt-run', { env: fakeProviderEnv(server), noCache: true });
      const options = {
        instancesDir: DATA,
        resultsDir: join(dir, 'results'),
        judge: judgeFromClient('openai:gpt-run', client),
      };

      const first = await runRubric(options);
      expect(first.summary.rows.map((row) => [row.instance_id, row.status])).toEqual([
        ['education/Computer_science_lectures/ch1_bits', 'evaluated'],
        ['education/Computer_science_lectures/ch2_bad_callable', 'failed'],
      ]);
      expect(first.summary.rows[1]?.error).toMatch(/unknown PresentBench callable/);
      expect(first.summary.rows[0]?.paper_total_percent).toBe(100);
      expect(first.summary.categories.education).toMatchObject({
        count: 2,
        paper_mean_percent: 100,
        presentbench_mean_percent: 100,
      });
      // PresentBench's own names in the case's results folder, found by its resume and scoring_all
      const files = evaluationFilesFor(join(resultDir, 'slides.pptx'), 'openai:gpt-run');
      expect(files.presentbench).toEqual({ kind: 'results-dir', dir: resultDir, model: 'gpt-run' });
      const resultFile = first.summary.rows[0]?.presentbench_result ?? '';
      expect(resultFile).toMatch(/\/gpt-run_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\.yaml$/);
      expect(first.summary.rows[0]?.presentbench_score).toBe(resultFile.replace(/\.yaml$/, '_score.yaml'));
      expect(await readFile(resultFile, 'utf8')).toContain('material_dependent:');
      expect(first.summary.parser).toBe('strict');
      const calls = server.requests.length;

      const again = await runRubric(options);
      expect(again.summary.rows[0]?.status).toBe('skipped');
      expect(server.requests.length).toBe(calls);
      expect(await readFile(again.summaryFile, 'utf8')).toBe(await readFile(first.summaryFile, 'utf8'));
      // an unchanged result is not written again under a new time
      expect((await readdir(resultDir)).filter((name) => name.startsWith('gpt-run_'))).toHaveLength(2);

      const forced = await runRubric({ ...options, force: true });
      expect(forced.summary.rows[0]?.status).toBe('evaluated');
      expect(server.requests.length).toBeGreaterThan(calls);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('reports progress over checklist items, not cases, and re-judges only unanswered items', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-rubric-run-progress-');
    let failFonts = true;
    const server = await startFakeLlmServer({
      handler: (request) =>
        failFonts && request.text.includes('**Font Size and Legibility**')
          ? { text: 'Readable, I think.' }
          : { text: '\\boxed{yes}' },
    });
    try {
      const decks = await writeLayoutFixtureDecks(dir);
      const resultDir = join(
        dir,
        'results/education/Computer_science_lectures/ch1_bits/generation_task/results',
      );
      await mkdir(resultDir, { recursive: true });
      await copyFile(decks.clean, join(resultDir, 'slides.pptx'));
      const ticks: Array<[number, string | undefined]> = [];
      let total = 0;
      const progress = {
        start: (_label: string, count: number) => {
          total = count;
        },
        tick: (count = 1, note?: string) => {
          ticks.push([count, note]);
        },
        finish: () => {},
      };
      const client = createLlmClient('openai:gpt-resume', { env: fakeProviderEnv(server), noCache: true });
      const options = {
        instancesDir: DATA,
        resultsDir: join(dir, 'results'),
        judge: judgeFromClient('openai:gpt-resume', client),
        progress,
      };
      const first = await runRubric(options);
      // 14 checklist items for the 4-slide deck; the failing second case has none
      expect(total).toBe(14);
      expect(ticks.reduce((sum, [count]) => sum + count, 0)).toBe(14);
      expect(first.summary.rows[0]).toMatchObject({
        error_count: 1,
        presentbench_score: null,
        presentbench_total_percent: null,
      });
      const calls = server.requests.length;
      failFonts = false;
      const second = await runRubric(options);
      expect(server.requests.length - calls).toBe(1);
      expect(second.summary.rows[0]).toMatchObject({
        status: 'evaluated',
        error_count: 0,
        presentbench_total_percent: 100,
      });
      expect(second.summary.rows[0]?.presentbench_score).toMatch(/_score\.yaml$/);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('finds xsb-format instances when there is no PresentBench case', async () => {
    const entries = await findInstances(FIXTURES);
    // the PresentBench cases win when a root holds both kinds
    expect(entries.map((entry) => entry.relativePath)).toEqual([
      'presentbench-layout/data/education/Computer_science_lectures/ch1_bits',
      'presentbench-layout/data/education/Computer_science_lectures/ch2_bad_callable',
    ]);
    const own = await findInstances(join(FIXTURES, 'appendix-cs-overview-ch1'));
    expect(own.map((entry) => entry.relativePath)).toEqual(['.']);
    expect((await own[0]?.load())?.id).toBe('appendix-a2-computer-science-overview-ch1');
  });

  it('turns judge ids into safe file-name parts', () => {
    expect(judgeSlug('anthropic:claude-sonnet-4-5')).toBe('anthropic_claude-sonnet-4-5');
    expect(judgeSlug('replay:/tmp/store.jsonl')).toBe('replay_tmp_store.jsonl');
  });
});
