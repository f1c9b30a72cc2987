import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RubricEvaluation } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  itemsFromPresentBenchResult,
  readPresentBenchResult,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
import { scorePaper } from './score-evaluation';
import { scoreEvaluation, scorePresentBenchVerdicts } from './score-report';

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
    // fundamentals 2/3, design 1/2, completeness 2/2, correctness 0/1, fidelity 3/5 (NA is not satisfied).
    const paper = scorePaper(items, 'report');
    expect(paper.total_percent).toBeCloseTo(((2 / 3 + 1 / 2 + 1 + 0 + 3 / 5) / 5) * 100, 10);
    expect(paper.error_count).toBe(2);
    const strict = scorePaper(items, 'as-no');
    expect(strict.dimensions.design.score).toBeCloseTo(1 / 3, 10);
    expect(strict.total_percent).toBeCloseTo(((2 / 3 + 1 / 3 + 1 + 0 + 3 / 5) / 5) * 100, 10);
  });
});

describe('PresentBench result YAML round trip', () => {
  it('export, re-import: the same verdicts and the same scores from either side', async () => {
    const verdicts: Array<
      [RubricEvaluation['items'][number]['section'], string, RubricEvaluation['items'][number]['verdict']]
    > = [
      ['material_independent', '1.1', 'yes'],
      ['material_independent', '1.2', 'no'],
      ['material_independent', '2.1', 'error'],
      ['material_independent', '2.2', 'yes'],
      ['material_dependent', '1.1', 'yes'],
      ['material_dependent', '2.1', 'no'],
      ['material_dependent', '2.2', 'yes'],
      ['material_dependent', '3.1', 'not_applicable'],
      ['material_dependent', '3.2', 'yes'],
    ];
    const dimensionOf = {
      material_independent: ['fundamentals', 'design'],
      material_dependent: ['completeness', 'correctness', 'fidelity'],
    } as const;
    const evaluation = evaluationWith(
      verdicts.map(([section, key, verdict]) => ({
        ...item(key, verdict),
        section,
        dimension: dimensionOf[section][
          Number(key.split('.')[0]) - 1
        ] as RubricEvaluation['items'][number]['dimension'],
        ...(key === '1.1' && section === 'material_independent'
          ? { kind: 'check' as const, explanation: '[judged by code] 4 slides, within 3-5' }
          : {}),
      })),
    );
    const { dir, cleanup } = await makeTempDir();
    try {
      const file = join(dir, 'result.yaml');
      await writeFile(file, stringifyPresentBenchResult(toPresentBenchResult(evaluation)));
      const imported = await readPresentBenchResult(file);
      const items = itemsFromPresentBenchResult(imported);
      const shape = (list: RubricEvaluation['items']) =>
        list.map((entry) => [
          entry.section,
          entry.key,
          entry.dimension,
          entry.kind,
          entry.verdict,
          entry.explanation,
        ]);
      expect(shape(items)).toEqual(shape(evaluation.items));
      const weights = {
        material_independent: { '1': 10, '2': 30 },
        material_dependent: { '1': 20, '2': 25, '3': 15 },
      };
      const ours = scoreEvaluation(evaluation, { weights });
      const theirs = scorePresentBenchVerdicts(imported, { weights });
      expect(theirs.paper).toEqual(ours.paper);
      expect(theirs.presentbench).toEqual(ours.presentbench);
      // all-items: the error stays in class 2's denominator (1 yes of 2), as scoring.py counts it
      expect(ours.presentbench.classes.material_independent['2']).toMatchObject({
        yes_count: 1,
        valid_count: 2,
      });
    } finally {
      await cleanup();
    }
  });
});
