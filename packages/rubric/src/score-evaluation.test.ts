import { describe, expect, it } from 'vitest';
import type { RubricItemResult } from './schemas/rubric-evaluation';
import {
  describeDimensionScore,
  dimensionCounts,
  scorePaper,
  shownDimensionScore,
  shownPaperTotal,
} from './score-evaluation';

function item(
  dimension: RubricItemResult['dimension'],
  verdict: RubricItemResult['verdict'],
): RubricItemResult {
  const section =
    dimension === 'fundamentals' || dimension === 'design' ? 'material_independent' : 'material_dependent';
  return {
    key: '1.1',
    section,
    class_id: '1',
    dimension,
    kind: verdict === 'not_judged' ? 'llm' : 'check',
    verdict,
    raw_answer: null,
    answer: null,
    explanation: null,
    cited_slides: [],
    attempts: 0,
  };
}

const everyDimension = (verdict: RubricItemResult['verdict']) =>
  (['fundamentals', 'design', 'completeness', 'correctness', 'fidelity'] as const).map((d) =>
    item(d, verdict),
  );

describe('scores shown to people', () => {
  it('a dimension with unjudged items reads n/a with the counts, though JSON keeps the share of the judged', () => {
    const items = [
      item('fundamentals', 'no'),
      ...Array.from({ length: 12 }, () => item('fundamentals', 'not_judged')),
    ];
    const paper = scorePaper([...items, ...everyDimension('yes').slice(1)]);
    const fundamentals = paper.dimensions.fundamentals;
    expect(fundamentals.score).toBe(0);
    expect(shownDimensionScore(fundamentals)).toBeNull();
    expect(describeDimensionScore(fundamentals)).toBe('n/a (1 of 13 judged: 1 no, 12 not judged)');
    // every dimension has a score, so the JSON total is a number; people read n/a while items are unjudged
    expect(paper.total_percent).toBe(80);
    expect(shownPaperTotal(paper)).toBeNull();
  });

  it('a fully judged dimension keeps its percentage and every count', () => {
    const paper = scorePaper([
      ...everyDimension('yes'),
      item('fundamentals', 'no'),
      item('fundamentals', 'other'),
    ]);
    expect(describeDimensionScore(paper.dimensions.fundamentals)).toBe(
      '33.3% (1 yes, 1 no, 1 other, 0 unanswered, 0 not judged)',
    );
    expect(shownPaperTotal(paper)).toBeCloseTo((100 * (1 / 3 + 4)) / 5, 10);
    expect(dimensionCounts(scorePaper([]).dimensions.design)).toBe('0 yes, 0 no, 0 unanswered, 0 not judged');
  });
});
