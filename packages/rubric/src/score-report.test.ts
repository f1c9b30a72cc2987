import { describe, expect, it } from 'vitest';
import { scorePresentBenchResult } from './presentbench-scoring';
import { summarisePresentBench } from './score-report';

describe('summarisePresentBench with not-judged items', () => {
  const weights = {
    material_independent: { '1': 10, '2': 30 },
    material_dependent: { '1': 20, '2': 25, '3': 15 },
  };
  const yes = { answer: 'yes', explanation: null };
  const tree = scorePresentBenchResult(
    {
      material_independent: { '1': { '1.1': yes }, '2': { '2.1': yes } },
      material_dependent: { '1': { '1.1': yes }, '2': { '2.1': yes }, '3': { '3.1': yes } },
    },
    weights,
  );

  it('keeps every number when all items are judged', () => {
    const summary = summarisePresentBench(tree, 'all-items');
    expect(summary).toMatchObject({
      total_percent: 100,
      not_judged_count: 0,
      material_dependent_percent: 100,
    });
  });

  it('nulls what depends on an incomplete class, keeps the rest and the leave-one-out without it', () => {
    const summary = summarisePresentBench(tree, 'all-items', new Set(['material_independent_2']), 3);
    expect(summary).toMatchObject({
      not_judged_count: 3,
      total_percent: null,
      material_independent_percent: null,
      material_dependent_percent: 100,
    });
    expect(summary.classes.material_independent['2']?.score_percent).toBeNull();
    expect(summary.classes.material_independent['1']?.score_percent).toBe(100);
    expect(summary.leave_one_out_percent).toEqual({
      material_independent_1: null,
      material_independent_2: 100,
      material_dependent_1: null,
      material_dependent_2: null,
      material_dependent_3: null,
    });
  });
});
