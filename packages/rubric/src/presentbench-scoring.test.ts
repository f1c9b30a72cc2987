import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPresentBenchWeights } from './load-presentbench-case';
import { readPresentBenchResult } from './presentbench-result';
import { scorePresentBenchResult, scorePresentBenchSection } from './presentbench-scoring';

const FIXTURE = join(__dirname, '../../../fixtures/rubric/presentbench-layout');

describe('scorePresentBenchSection (scoring.py score_section)', () => {
  const answers = {
    '1': {
      '1.1': { answer: 'yes' },
      '1.2': { answer: 'no' },
      '1.3': { answer: 'not applicable' },
      '1.4': { answer: null },
    },
  };

  it('all-items (PresentBench f228b29): every item is in the denominator, as its own unit test asserts', () => {
    const { total, classInfo } = scorePresentBenchSection(answers, { '1': 10 }, 'all-items');
    expect(total).toBe(2.5);
    expect(classInfo['1']).toMatchObject({ yes_count: 1, valid_count: 4, not_applicable_count: 1 });
  });

  it('yes-no-only (PresentBench 65068ca): only yes/no answers count', () => {
    const { total, classInfo } = scorePresentBenchSection(answers, { '1': 10 }, 'yes-no-only');
    expect(total).toBe(5);
    expect(classInfo['1']).toMatchObject({ yes_count: 1, valid_count: 2, not_applicable_count: 1 });
  });

  it('a class without weight scores 0 and the "total" key is skipped', () => {
    const { total, classInfo } = scorePresentBenchSection(
      { total: { x: { answer: 'yes' } }, '7': { '7.1': { answer: 'yes' } } },
      { '1': 5 },
    );
    expect(total).toBe(0);
    expect(Object.keys(classInfo)).toEqual(['7']);
  });
});

describe('scorePresentBenchResult on the worked example with unequal class weights', () => {
  it('matches the hand computation of scoring.py (all-items)', async () => {
    const result = await readPresentBenchResult(join(FIXTURE, 'result-example.yaml'));
    const weights = await readPresentBenchWeights(join(FIXTURE, 'data/education/judge_weights.yaml'));
    const tree = scorePresentBenchResult(result, weights, 'all-items');
    // Hand computation, weights mi {1:10, 2:30}, md {1:20, 2:25, 3:15}, total 100:
    //   mi1 = 10*2/3, mi2 = 30*1/3 ("\text{Yes" is not "yes"), md1 = 20*2/2, md2 = 25*0/2, md3 = 15*3/5.
    const mi1 = (10 * 2) / 3;
    const mi2 = 10;
    const md1 = 20;
    const md2 = 0;
    const md3 = 9;
    expect(tree.material_independent.weighted_arithmetic_mean_percent).toBeCloseTo(
      ((mi1 + mi2) / 40) * 100,
      10,
    );
    expect(tree.material_dependent.weighted_arithmetic_mean_percent).toBeCloseTo(
      ((md1 + md2 + md3) / 60) * 100,
      10,
    );
    expect(tree.total.weighted_arithmetic_mean_percent).toBeCloseTo(mi1 + mi2 + md1 + md2 + md3, 10);
    expect(tree.total.weighted_arithmetic_mean_percent).toBeCloseTo(45.6667, 3);
    expect(tree.material_independent.classes.class_2).toEqual({
      weight_percent: 30,
      score_percent: (1 / 3) * 100,
      yes_count: 1,
      valid_count: 3,
      not_applicable_count: 0,
    });
    expect(tree.material_dependent.classes.class_3).toMatchObject({
      yes_count: 3,
      valid_count: 5,
      not_applicable_count: 1,
    });
    expect(tree.material_independent.weight_percent).toBe(40);
    expect(tree.total).toMatchObject({ yes_count: 8, valid_count: 15, not_applicable_count: 1 });
    const loo = tree.total.leave_one_out_analysis;
    expect(Object.keys(loo)).toEqual([
      'material_independent_1',
      'material_independent_2',
      'material_dependent_1',
      'material_dependent_2',
      'material_dependent_3',
    ]);
    expect(loo.material_independent_1?.weighted_arithmetic_mean_percent).toBeCloseTo(
      ((mi2 + md1 + md2 + md3) / 90) * 100,
      10,
    );
    expect(loo.material_dependent_2?.weighted_arithmetic_mean_percent).toBeCloseTo(
      ((mi1 + mi2 + md1 + md3) / 75) * 100,
      10,
    );
  });

  it('yes-no-only drops the unreadable and unanswered items from the denominators', async () => {
    const result = await readPresentBenchResult(join(FIXTURE, 'result-example.yaml'));
    const weights = await readPresentBenchWeights(join(FIXTURE, 'data/education/judge_weights.yaml'));
    const tree = scorePresentBenchResult(result, weights, 'yes-no-only');
    // mi2 = 30*1/2, md2 = 25*0/1, md3 = 15*3/4
    expect(tree.total.weighted_arithmetic_mean_percent).toBeCloseTo((10 * 2) / 3 + 15 + 20 + 0 + 11.25, 10);
    expect(tree.material_dependent.classes.class_2).toMatchObject({ valid_count: 1, yes_count: 0 });
  });

  it('uses weights.total as the overall maximum and sums a section map including its own "total" entry', () => {
    const result = { material_independent: { '1': { '1.1': { answer: 'yes' } } }, material_dependent: {} };
    const tree = scorePresentBenchResult(result, { material_independent: { '1': 5, total: 5 }, total: 50 });
    expect(tree.total.weighted_arithmetic_mean_percent).toBe(10);
    expect(tree.material_independent.weighted_arithmetic_mean_percent).toBe(50);
  });

  it('reads an unquoted yes as PyYAML does: a boolean that is never "yes"', () => {
    const tree = scorePresentBenchResult(
      { material_independent: { '1': { '1.1': { answer: true }, '1.2': { answer: 'Yes ' } } } },
      { material_independent: { '1': 1 }, material_dependent: {} },
    );
    expect(tree.material_independent.classes.class_1).toMatchObject({ yes_count: 1, valid_count: 2 });
  });
});
