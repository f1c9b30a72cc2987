import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  dumpScoreTreeYaml,
  isPresentBenchResultsDeck,
  modelFilenamePrefix,
  presentBenchModelName,
  writePresentBenchFiles,
} from './presentbench-files';
import {
  itemsFromPresentBenchResult,
  NOT_JUDGED_LOG,
  readPresentBenchResult,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
import { scorePresentBenchResult } from './presentbench-scoring';
import type { RubricEvaluation } from './schemas/rubric-evaluation';
import { scorePaper } from './score-evaluation';
import { scoreEvaluation, scorePresentBenchVerdicts } from './score-report';

const RESULT = join(__dirname, '../../../fixtures/rubric/presentbench-layout/result-example.yaml');
const WEIGHTS = {
  material_independent: { '1': 10, '2': 30 },
  material_dependent: { '1': 20, '2': 25, '3': 15 },
};

type Item = RubricEvaluation['items'][number];

function evaluationWith(items: Item[]): RubricEvaluation {
  return {
    instance_id: 'x',
    category: 'education',
    deck_path: 'd.pptx',
    judge: 'openai:gpt-x',
    parser: 'strict',
    slide_count_on: 'judged',
    weights: WEIGHTS,
    input_hash: 'h',
    slide_count: 1,
    judged_slide_count: 1,
    truncated: false,
    items,
    layout_checks: [],
    usage: { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  };
}

const DIMENSIONS = {
  material_independent: ['fundamentals', 'design'],
  material_dependent: ['completeness', 'correctness', 'fidelity'],
} as const;

function item(
  key: string,
  verdict: Item['verdict'],
  answer: string | null,
  section: Item['section'] = 'material_independent',
): Item {
  const classId = key.split('.')[0] as string;
  return {
    key,
    section,
    class_id: classId,
    dimension: DIMENSIONS[section][Number(classId) - 1] as Item['dimension'],
    kind: 'llm',
    verdict,
    raw_answer: answer,
    answer,
    explanation: `about ${key}`,
    cited_slides: [],
    attempts: 1,
    ...(verdict === 'error' ? { log: `Failed to extract answer after 5 attempts for item ${key}` } : {}),
  };
}

describe('PresentBench result YAML', () => {
  it('stores answers as given; unanswered and unjudged items as judge.py stores a failed item', () => {
    const out = toPresentBenchResult(
      evaluationWith([
        item('1.1', 'yes', 'Yes'),
        item('1.2', 'error', null),
        item('2.1', 'not_judged', null),
        item('2.2', 'other', 'maybe'),
      ]),
    );
    expect(out.material_independent).toEqual({
      '1': {
        '1.1': { answer: 'Yes', explanation: 'about 1.1' },
        '1.2': {
          answer: null,
          explanation: 'about 1.2',
          log: 'Failed to extract answer after 5 attempts for item 1.2',
        },
      },
      '2': {
        '2.1': { answer: null, explanation: null, log: NOT_JUDGED_LOG },
        '2.2': { answer: 'maybe', explanation: 'about 2.2' },
      },
    });
    expect(out.material_dependent).toEqual({});
  });

  it('--errors as-no answers unanswered items "no" and refuses unjudged ones', () => {
    const asNo = toPresentBenchResult(evaluationWith([item('1.2', 'error', null)]), { errors: 'as-no' });
    expect(asNo.material_independent['1']?.['1.2']).toMatchObject({
      answer: 'no',
      log: expect.stringMatching(/as-no/),
    });
    expect(() =>
      toPresentBenchResult(evaluationWith([item('2.1', 'not_judged', null)]), { errors: 'as-no' }),
    ).toThrow(/1 item was not judged/);
  });

  it('writes YAML 1.1 that keeps "yes", "Yes" and class keys strings for PyYAML', () => {
    const text = stringifyPresentBenchResult(
      toPresentBenchResult(evaluationWith([item('1.1', 'yes', 'yes'), item('1.2', 'yes', 'Yes')])),
    );
    const read = parse(text, { version: '1.1', mapAsMap: true });
    const classOne = read.get('material_independent').get('1');
    expect(classOne.get('1.1').get('answer')).toBe('yes');
    expect(classOne.get('1.2').get('answer')).toBe('Yes');
  });

  it('imports PresentBench verdicts: non-text answers unanswered, other text scored as not-yes', async () => {
    const items = itemsFromPresentBenchResult(await readPresentBenchResult(RESULT));
    expect(items).toHaveLength(15);
    const find = (key: string, section: Item['section']) =>
      items.find((entry) => entry.key === key && entry.section === section);
    expect(find('2.3', 'material_independent')).toMatchObject({
      dimension: 'design',
      verdict: 'other',
      answer: '\\text{Yes',
    });
    expect(find('2.2', 'material_dependent')).toMatchObject({ verdict: 'error', answer: null });
    expect(find('1.1', 'material_independent')?.kind).toBe('check');
    expect(find('2.1', 'material_dependent')?.cited_slides).toEqual([2, 4]);
    // Paper formula on the same verdicts, the unanswered one reported apart: fundamentals 2/3,
    // design 1/3, completeness 2/2, correctness 0/1, fidelity 3/5 (not applicable is not satisfied).
    const paper = scorePaper(items, 'report');
    expect(paper.total_percent).toBeCloseTo(((2 / 3 + 1 / 3 + 1 + 0 + 3 / 5) / 5) * 100, 10);
    expect(paper.error_count).toBe(1);
    expect(scorePaper(items, 'as-no').dimensions.correctness.score).toBe(0);
  });

  it('export, re-import: the same verdicts and the same scores from either side', async () => {
    const evaluation = evaluationWith([
      {
        ...item('1.1', 'yes', 'yes'),
        kind: 'check',
        explanation: '[judged by code] The number of slides is 4.',
      },
      item('1.2', 'no', 'No'),
      item('2.1', 'other', 'maybe'),
      item('2.2', 'yes', 'Yes'),
      item('1.1', 'yes', 'yes', 'material_dependent'),
      item('2.1', 'no', 'no', 'material_dependent'),
      item('3.1', 'other', 'not sure', 'material_dependent'),
      item('3.2', 'yes', 'yes', 'material_dependent'),
    ]);
    const { dir, cleanup } = await makeTempDir();
    try {
      const file = join(dir, 'result.yaml');
      await writeFile(file, stringifyPresentBenchResult(toPresentBenchResult(evaluation)));
      const imported = await readPresentBenchResult(file);
      const shape = (list: Item[]) =>
        list.map((entry) => [
          entry.section,
          entry.key,
          entry.dimension,
          entry.kind,
          entry.verdict,
          entry.answer,
        ]);
      expect(shape(itemsFromPresentBenchResult(imported))).toEqual(shape(evaluation.items));
      const ours = scoreEvaluation(evaluation, { weights: WEIGHTS });
      const theirs = scorePresentBenchVerdicts(imported, { weights: WEIGHTS });
      expect(theirs.paper).toEqual(ours.paper);
      expect(theirs.presentbench).toEqual(ours.presentbench);
      expect(theirs.presentbench_score_tree).toEqual(ours.presentbench_score_tree);
      expect(ours.presentbench.classes.material_independent['2']).toMatchObject({
        yes_count: 1,
        valid_count: 2,
        score_percent: 50,
      });
    } finally {
      await cleanup();
    }
  });
});

describe('PresentBench file names and writing', () => {
  it.each([
    ['gemini-3-flash-preview', 'gemini-3-flash-preview'],
    ['models/gemini-3-pro', 'gemini-3-pro'],
    ['vendor\\model:v1?', 'model-v1'],
    ['  .weird.  ', 'weird'],
    ['::', 'model'],
  ])('model_filename_prefix(%j) is %j', (model, prefix) => {
    expect(modelFilenamePrefix(model)).toBe(prefix);
  });

  it('names the model as PresentBench --model would', () => {
    expect(presentBenchModelName('anthropic:claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
    expect(presentBenchModelName('replay:store.jsonl')).toBe('replay:store.jsonl');
    expect(isPresentBenchResultsDeck('/r/edu/case/generation_task/results/slides.pdf')).toBe(true);
    expect(isPresentBenchResultsDeck('/r/edu/case/generation_task/results/deck.pdf')).toBe(false);
  });

  it('writes <model>_<time>.yaml + _score.yaml, never twice for the same text, no score while unanswered', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-pb-files-');
    try {
      const target = { kind: 'results-dir', dir, model: 'gpt-x' } as const;
      const answered = evaluationWith([item('1.1', 'yes', 'yes'), item('2.1', 'no', 'no')]);
      const first = await writePresentBenchFiles(answered, target, {
        weights: WEIGHTS,
        now: new Date(2026, 0, 27, 12, 34, 56),
      });
      expect(first).toEqual({
        result: join(dir, 'gpt-x_2026-01-27_12-34-56.yaml'),
        score: join(dir, 'gpt-x_2026-01-27_12-34-56_score.yaml'),
      });
      const tree = scorePresentBenchResult(toPresentBenchResult(answered), WEIGHTS);
      expect(await readFile(first.score as string, 'utf8')).toBe(dumpScoreTreeYaml(tree));
      const again = await writePresentBenchFiles(answered, target, {
        weights: WEIGHTS,
        now: new Date(2026, 0, 28),
      });
      expect(again).toEqual(first);
      const unanswered = evaluationWith([item('1.1', 'yes', 'yes'), item('2.1', 'error', null)]);
      const later = await writePresentBenchFiles(unanswered, target, {
        weights: WEIGHTS,
        now: new Date(2026, 0, 29, 8, 0, 0),
      });
      expect(later).toEqual({ result: join(dir, 'gpt-x_2026-01-29_08-00-00.yaml'), score: null });
      expect((await readdir(dir)).sort()).toEqual([
        'gpt-x_2026-01-27_12-34-56.yaml',
        'gpt-x_2026-01-27_12-34-56_score.yaml',
        'gpt-x_2026-01-29_08-00-00.yaml',
      ]);
    } finally {
      await cleanup();
    }
  });
});
