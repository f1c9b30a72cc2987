import { join } from 'node:path';
import type { RubricEvaluation } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  itemsFromPresentBenchResult,
  readPresentBenchResult,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
import { scorePaper } from './score-evaluation';

const RESULT = join(__dirname, '../../../fixtures/rubric/presentbench-layout/result-example.yaml');

function evaluationWith(items: RubricEvaluation['items']): RubricEvaluation {
  return {
    instance_id: 'x',
    category: 'education',
    deck_path: 'd.pptx',
    judge: 'test',
    input_hash: 'h',
    slide_count: 1,
    judged_slide_count: 1,
    truncated: false,
    items,
    layout_checks: [],
    usage: { calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  };
}

const item = (
  key: string,
  verdict: RubricEvaluation['items'][number]['verdict'],
): RubricEvaluation['items'][number] => ({
  key,
  section: 'material_independent',
  class_id: key.split('.')[0] as string,
  dimension: key.startsWith('1') ? 'fundamentals' : 'design',
  kind: 'llm',
  verdict,
  raw_answer: null,
  explanation: `about ${key}`,
  cited_slides: [],
  attempts: 1,
});

describe('PresentBench result YAML', () => {
  it('exports verdicts in judge.py layout, errors as answer null, unjudged items left out', () => {
    const out = toPresentBenchResult(
      evaluationWith([
        item('1.1', 'yes'),
        item('1.2', 'error'),
        item('2.1', 'not_judged'),
        item('2.2', 'not_applicable'),
      ]),
    );
    expect(out.material_independent).toEqual({
      '1': {
        '1.1': { answer: 'yes', explanation: 'about 1.1' },
        '1.2': { answer: null, explanation: 'about 1.2', log: 'unparseable judge answer' },
      },
      '2': { '2.2': { answer: 'not applicable', explanation: 'about 2.2' } },
    });
    expect(out.material_dependent).toEqual({});
    const asNo = toPresentBenchResult(evaluationWith([item('1.2', 'error')]), { errorsAsNo: true });
    expect(asNo.material_independent['1']?.['1.2']?.answer).toBe('no');
  });

  it('writes YAML 1.1 that keeps "yes" a string for PyYAML', () => {
    const text = stringifyPresentBenchResult(toPresentBenchResult(evaluationWith([item('1.1', 'yes')])));
    expect(text).toContain('answer: "yes"');
    expect(parse(text, { version: '1.1' }).material_independent['1']['1.1'].answer).toBe('yes');
  });

  it('imports PresentBench verdicts with their dimensions, unreadable answers as errors', async () => {
    const items = itemsFromPresentBenchResult(await readPresentBenchResult(RESULT));
    expect(items).toHaveLength(15);
    expect(
      items.find((entry) => entry.key === '2.3' && entry.section === 'material_independent'),
    ).toMatchObject({
      dimension: 'design',
      verdict: 'error',
      raw_answer: '\\text{Yes',
    });
    expect(items.find((entry) => entry.key === '1.1' && entry.section === 'material_independent')?.kind).toBe(
      'check',
    );
    expect(
      items.find((entry) => entry.key === '2.1' && entry.section === 'material_dependent')?.cited_slides,
    ).toEqual([2, 4]);
    // Paper formula on the same verdicts, errors reported apart:
    // fundamentals 2/3, design 1/2, completeness 2/2, correctness 0/1, fidelity 3/4 (NA left out).
    const paper = scorePaper(items, 'report');
    expect(paper.total_percent).toBeCloseTo(((2 / 3 + 1 / 2 + 1 + 0 + 3 / 4) / 5) * 100, 10);
    expect(paper.error_count).toBe(2);
    const strict = scorePaper(items, 'as-no');
    expect(strict.dimensions.design.score).toBeCloseTo(1 / 3, 10);
    expect(strict.total_percent).toBeCloseTo(((2 / 3 + 1 / 3 + 1 + 0 + 3 / 4) / 5) * 100, 10);
  });
});
