import { describe, expect, it } from 'vitest';
import { scorePresentBenchResult } from './presentbench-scoring';
import { classHasNoItems, summarisePresentBench } from './score-report';

describe('summarisePresentBench', () => {
  const weights = {
    material_independent: { '1': 10, '2': 30 },
    material_dependent: { '1': 20, '2': 25, '3': 15 },
  };
  const yes = { answer: 'yes', explanation: null };
  const tree = scorePresentBenchResult(
    {
      material_independent: { '1': { '1.1': yes }, '2': { '2.1': yes } },
      material_dependent: { '1': { '1.1': yes }, '2': { '2.1': yes }, '3': {} },
    },
    weights,
  );
  const counts = { notJudged: 0, unanswered: 0, unscoreableReason: null };

  it("keeps scoring.py numbers: a class without any item is upstream's 0.0, marked as having no items", () => {
    const summary = summarisePresentBench(tree, 'all-items', new Set(), counts);
    expect(tree.total.material_dependent.classes.class_3?.score_percent).toBe(0);
    const empty = summary.classes.material_dependent['3']!;
    expect(empty).toMatchObject({ score_percent: 0, valid_count: 0 });
    expect(classHasNoItems(empty)).toBe(true);
    expect(classHasNoItems(summary.classes.material_dependent['1']!)).toBe(false);
    // scoring.py's total counts the empty class's weight as lost: 85 of 100
    expect(summary).toMatchObject({ total_percent: 85, not_judged_count: 0 });
  });

  it('nulls what depends on an incomplete class, keeps the rest and the leave-one-out without it', () => {
    const summary = summarisePresentBench(tree, 'all-items', new Set(['material_independent_2']), {
      ...counts,
      notJudged: 3,
    });
    expect(summary).toMatchObject({
      not_judged_count: 3,
      total_percent: null,
      material_independent_percent: null,
    });
    expect(summary.material_dependent_percent).toBeCloseTo((45 / 60) * 100, 10);
    expect(summary.classes.material_independent['2']?.score_percent).toBeNull();
    expect(summary.classes.material_independent['1']?.score_percent).toBe(100);
    expect(summary.leave_one_out_percent.material_independent_1).toBeNull();
    expect(summary.leave_one_out_percent.material_dependent_1).toBeNull();
    // without class 2: (10 + 20 + 25 + 0) / (10 + 20 + 25 + 15)
    expect(summary.leave_one_out_percent.material_independent_2).toBeCloseTo((55 / 70) * 100, 10);
  });
});
