import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { dumpScoreTreeYaml } from './presentbench-files';
import { readPresentBenchResult } from './presentbench-result';
import { scorePresentBenchResult } from './presentbench-scoring';
import { pythonFloatRepr, readPythonYaml } from './python-values';

const FIXTURE = join(__dirname, '../../../fixtures/rubric/presentbench-layout');
const WEIGHTS = join(FIXTURE, 'data/education/judge_weights.yaml');

const oneClass = (items: Record<string, unknown>) => ({
  material_independent: { '1': items },
  material_dependent: {},
});
const tenPoints = { material_independent: { '1': 10 }, material_dependent: {} };

describe('scorePresentBenchResult: score_section of scoring.py at main', () => {
  it('puts every item dict in the denominator and counts answer.strip().lower() == "yes"', () => {
    const tree = scorePresentBenchResult(
      oneClass({
        '1.1': { answer: 'Yes ' },
        '1.2': { answer: 'no' },
        '1.3': { answer: 'not applicable' },
        '1.4': { answer: 'maybe' },
        '1.5': { explanation: 'no answer key: "" is not yes' },
        '1.6': 'not a dict: skipped',
      }),
      tenPoints,
    );
    expect(tree.total.material_independent.classes.class_1).toEqual({
      weight_percent: 100,
      score_percent: 20,
      yes_count: 1,
      valid_count: 5,
    });
  });

  it('stops where scoring.py raises: an answer that is null or a YAML boolean', () => {
    expect(() => scorePresentBenchResult(oneClass({ '1.1': { answer: null } }), tenPoints)).toThrow(
      /material_independent → 1 → 1\.1: answer is null \(unanswered\).*AttributeError: 'NoneType' object has no attribute 'strip'/,
    );
    expect(() => scorePresentBenchResult(oneClass({ '1.1': { answer: true } }), tenPoints)).toThrow(
      /answer is the bool True/,
    );
    // as-no: what scoring.py computes once such items are exported as "no"
    const tree = scorePresentBenchResult(
      oneClass({ '1.1': { answer: null }, '1.2': { answer: 'yes' } }),
      tenPoints,
      { unanswered: 'as-no' },
    );
    expect(tree.total.weighted_arithmetic_mean_percent).toBe(50);
  });

  it('stops on a missing section, as `None.items()` does', () => {
    expect(() =>
      scorePresentBenchResult({ material_independent: {} }, tenPoints, { file: 'r.yaml' }),
    ).toThrow(/material_dependent: .*'NoneType' object has no attribute 'items'/);
  });

  it('yes-no-only (PresentBench 65068ca): only yes/no answers count, unanswered ones are skipped', () => {
    const tree = scorePresentBenchResult(
      oneClass({
        '1.1': { answer: 'yes' },
        '1.2': { answer: 'no' },
        '1.3': { answer: 'not applicable' },
        '1.4': { answer: null },
      }),
      tenPoints,
      { rule: 'yes-no-only' },
    );
    expect(tree.total.material_independent.classes.class_1).toMatchObject({ yes_count: 1, valid_count: 2 });
  });

  it('skips a "total" class, gives a class without weight 0, and uses weights.total as the maximum', () => {
    // a Map keeps the file's order ('7' before '1'), as a Python dict does
    const classes = new Map<unknown, unknown>([
      ['total', { x: { answer: 'yes' } }],
      ['7', { '7.1': { answer: 'yes' } }],
      ['1', { '1.1': { answer: 'yes' } }],
    ]);
    const tree = scorePresentBenchResult(
      { material_independent: classes, material_dependent: {} },
      { material_independent: { '1': 5, total: 5 }, total: 50 },
    );
    expect(Object.keys(tree.total.material_independent.classes)).toEqual(['class_7', 'class_1']);
    expect(tree.total.weighted_arithmetic_mean_percent).toBe(10);
    expect(tree.total.material_independent.weighted_arithmetic_mean_percent).toBe(50);
  });

  it('looks weights up with Python key types: an unquoted 1: is an int, never the string "1"', async () => {
    const temp = await makeTempDir('xsb-pb-keys-');
    try {
      const intKeys = join(temp.dir, 'w.yaml');
      await writeFile(intKeys, 'material_independent:\n  1: 10\nmaterial_dependent: {}\n');
      const weights = await readPythonYaml(intKeys);
      const stringKeyed = scorePresentBenchResult(oneClass({ '1.1': { answer: 'yes' } }), weights);
      expect(stringKeyed.total.material_independent.classes.class_1?.weight_percent).toBe(0);
      const result = join(temp.dir, 'r.yaml');
      await writeFile(
        result,
        "material_independent:\n  1:\n    '1.1': {answer: 'yes'}\nmaterial_dependent: {}\n",
      );
      const intKeyed = scorePresentBenchResult(await readPresentBenchResult(result), weights);
      expect(intKeyed.total.weighted_arithmetic_mean_percent).toBe(100);
    } finally {
      await temp.cleanup();
    }
  });
});

describe('the worked example (fixture result, unequal class weights)', () => {
  it('cannot be scored as it stands (item 2.2 is unanswered), and matches the hand computation as-no', async () => {
    const result = await readPresentBenchResult(join(FIXTURE, 'result-example.yaml'));
    const weights = await readPythonYaml(WEIGHTS);
    expect(() => scorePresentBenchResult(result, weights)).toThrow(
      /material_dependent → 2 → 2\.2: answer is null/,
    );
    const tree = scorePresentBenchResult(result, weights, { unanswered: 'as-no' });
    // mi {1:10, 2:30}, md {1:20, 2:25, 3:15}: mi1 = 10·2/3, mi2 = 30·1/3 ("\text{Yes" is not "yes"),
    // md1 = 20·2/2, md2 = 25·0/2, md3 = 15·3/5 ("not applicable" is not-yes, in the denominator).
    const [mi1, mi2, md1, md2, md3] = [(10 * 2) / 3, 10, 20, 0, 9];
    expect(Object.keys(tree)).toEqual(['total']);
    expect(Object.keys(tree.total)).toEqual([
      'weighted_arithmetic_mean_percent',
      'yes_count',
      'valid_count',
      'leave_one_out_analysis',
      'material_independent',
      'material_dependent',
    ]);
    expect(tree.total.weighted_arithmetic_mean_percent).toBeCloseTo(mi1 + mi2 + md1 + md2 + md3, 10);
    expect(tree.total.material_independent.weighted_arithmetic_mean_percent).toBeCloseTo(
      ((mi1 + mi2) / 40) * 100,
      10,
    );
    expect(tree.total.material_dependent.classes.class_3).toEqual({
      weight_percent: 15,
      score_percent: 60,
      yes_count: 3,
      valid_count: 5,
    });
    expect(tree.total).toMatchObject({ yes_count: 8, valid_count: 15 });
    expect(
      tree.total.leave_one_out_analysis.material_dependent_2?.weighted_arithmetic_mean_percent,
    ).toBeCloseTo(((mi1 + mi2 + md1 + md3) / 75) * 100, 10);
  });
});

describe('the score YAML as PyYAML dumps it', () => {
  it('formats floats as Python repr and nests both sections in total', () => {
    const tree = scorePresentBenchResult(
      {
        material_independent: {
          '1': { '1.1': { answer: 'yes' }, '1.2': { answer: 'no' }, '1.3': { answer: 'no' } },
        },
        material_dependent: {},
      },
      { material_independent: { '1': 10 }, material_dependent: {} },
    );
    expect(dumpScoreTreeYaml(tree)).toBe(
      [
        'total:',
        '  weighted_arithmetic_mean_percent: 33.333333333333336',
        '  yes_count: 1',
        '  valid_count: 3',
        '  leave_one_out_analysis:',
        '    material_independent_1:',
        '      weighted_arithmetic_mean_percent: 0.0',
        '  material_independent:',
        '    weighted_arithmetic_mean_percent: 33.333333333333336',
        '    yes_count: 1',
        '    valid_count: 3',
        '    weight_percent: 100.0',
        '    classes:',
        '      class_1:',
        '        weight_percent: 100.0',
        '        score_percent: 33.333333333333336',
        '        yes_count: 1',
        '        valid_count: 3',
        '  material_dependent:',
        '    weighted_arithmetic_mean_percent: 0.0',
        '    yes_count: 0',
        '    valid_count: 0',
        '    weight_percent: 0.0',
        '    classes: {}',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [0.1, '0.1'],
    [100, '100.0'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [1.5e-7, '1.5e-07'],
    [1e16, '1e+16'],
    [123456789012345680, '1.2345678901234568e+17'],
    [9999999999999998, '9999999999999998.0'],
    [-2.5, '-2.5'],
  ])('repr(%d) is %s', (value, text) => {
    expect(pythonFloatRepr(value)).toBe(text);
  });
});
