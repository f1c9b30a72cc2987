import { describe, expect, it } from 'vitest';
import { alignEvaluator, caseSpearman } from './align-evaluator';
import { annotatorConcordance, humanCeiling } from './annotator-agreement';
import type { CaseRankings } from './case-rankings';
import { compareAlignments } from './compare-alignments';
import { dimensionAblation, dimensionSubsets } from './dimension-ablation';

const bootstrap = { seed: 7, resamples: 500 };
const caseOf = (id: string, rankings: Record<string, string[]>): CaseRankings => ({
  case: id,
  labels: ['A', 'B', 'C'],
  rankings: new Map(Object.entries(rankings)),
});
const scoresOf = (entries: Record<string, Record<string, number>>) =>
  new Map(Object.entries(entries).map(([id, byLabel]) => [id, new Map(Object.entries(byLabel))]));

describe('caseSpearman', () => {
  it('averages ρ over annotators, ties in the scores averaged', () => {
    const rankings = caseOf('c1', { x: ['A', 'B', 'C'], y: ['C', 'A', 'B'] });
    const scores = new Map([
      ['A', 3],
      ['B', 3],
      ['C', 1],
    ]);
    // By hand: the scores' ranks (2.5, 2.5, 1) centred u = (0.5, 0.5, −1). Annotator x's negated ranks
    // (−1, −2, −3) ranked and centred v1 = (1, 0, −1): ρ1 = u·v1 / (|u||v1|) = 1.5 / (√1.5·√2) = √3/2.
    // Annotator y (C, A, B): v2 = (0, −1, 1), ρ2 = −1.5 / √3 = −√3/2. Mean 0.
    expect(caseSpearman(scores, rankings).rho).toBeCloseTo(0, 12);
    const one = caseOf('c1', { x: ['A', 'B', 'C'] });
    expect(caseSpearman(scores, one).rho).toBeCloseTo(Math.sqrt(3) / 2, 12);
  });

  it('counts equal scores as 0, not undefined, and skips a case with fewer than two scored decks', () => {
    const rankings = caseOf('c1', { x: ['A', 'B', 'C'] });
    expect(
      caseSpearman(
        new Map([
          ['A', 1],
          ['B', 1],
          ['C', 1],
        ]),
        rankings,
      ),
    ).toEqual({ rho: 0, constant: true });
    expect(caseSpearman(new Map([['A', 1]]), rankings)).toEqual({ rho: null, constant: false });
    expect(caseSpearman(undefined, rankings).rho).toBeNull();
  });

  it('ranks only the decks the evaluator scored', () => {
    // B unscored: A, C with scores 1, 2 against ranks A=1, C=3 → disagree: ρ = −1.
    const rankings = caseOf('c1', { x: ['A', 'B', 'C'] });
    expect(
      caseSpearman(
        new Map([
          ['A', 1],
          ['C', 2],
        ]),
        rankings,
      ).rho,
    ).toBe(-1);
  });
});

describe('alignEvaluator', () => {
  it('is the mean over cases of the per-case means, with n and an interval that holds it', () => {
    const cases = [
      caseOf('c1', { x: ['A', 'B', 'C'], y: ['A', 'B', 'C'] }),
      caseOf('c2', { x: ['C', 'B', 'A'] }),
      caseOf('c3', { x: ['A', 'B', 'C'] }),
    ];
    const scores = scoresOf({ c1: { A: 3, B: 2, C: 1 }, c2: { A: 3, B: 2, C: 1 }, c3: { A: 5 } });
    const row = alignEvaluator('judge', scores, cases, bootstrap);
    expect(row.per_case).toEqual({ c1: 1, c2: -1, c3: null });
    expect(row).toMatchObject({ evaluator: 'judge', spearman: 0, n_cases: 2, constant_cases: [] });
    expect(row.ci_low!).toBeLessThanOrEqual(0);
    expect(row.ci_high!).toBeGreaterThanOrEqual(0);
    expect(row.ci_low).toBe(-1);
    expect(row.ci_high).toBe(1);
  });
});

describe('humanCeiling and annotatorConcordance', () => {
  it('score each annotator against the mean rank of the others, and Kendall W, over cases with two or more', () => {
    const cases = [
      // Two annotators agree: ρ 1 each; W 1.
      caseOf('same', { x: ['A', 'B', 'C'], y: ['A', 'B', 'C'] }),
      // Three annotators: x (A,B,C), y (A,C,B), z (B,A,C).
      caseOf('three', { x: ['A', 'B', 'C'], y: ['A', 'C', 'B'], z: ['B', 'A', 'C'] }),
      // One annotator: not counted.
      caseOf('alone', { x: ['C', 'B', 'A'] }),
    ];
    // "three": ranks x = (1,2,3), y = (1,3,2), z = (2,1,3).
    // x against the mean of y and z (1.5, 2, 2.5): ρ = 1.
    // y centred (−1, 1, 0) against the mean of x and z (1.5, 1.5, 3), centred (−0.5, −0.5, 1): dot 0, ρ = 0.
    // z centred (0, −1, 1) against the mean of x and y (1, 2.5, 2.5), centred (−1, 0.5, 0.5): dot 0, ρ = 0.
    // Case mean 1/3; "same" gives 1; the ceiling is (1 + 1/3) / 2.
    const ceiling = humanCeiling(cases, bootstrap);
    expect(ceiling.n_cases).toBe(2);
    expect(ceiling.value!).toBeCloseTo((1 + 1 / 3) / 2, 12);
    // W for "three": R = (1+1+2, 2+3+1, 3+2+3) = (4, 6, 8) → 96/216 (see @xsb/stats); "same" → 1.
    const w = annotatorConcordance(cases, bootstrap);
    expect(w.n_cases).toBe(2);
    expect(w.value!).toBeCloseTo((1 + 96 / 216) / 2, 12);
  });
});

describe('compareAlignments', () => {
  it('pairs the per-case ρ over the cases both have and says whether the difference is real', () => {
    const cases = ['c1', 'c2', 'c3', 'c4'].map((id) => caseOf(id, { x: ['A', 'B', 'C'] }));
    const good = scoresOf(Object.fromEntries(cases.map((c) => [c.case, { A: 3, B: 2, C: 1 }])));
    const bad = scoresOf(Object.fromEntries(cases.map((c) => [c.case, { A: 1, B: 2, C: 3 }])));
    const comparison = compareAlignments(
      alignEvaluator('bad', bad, cases, bootstrap),
      alignEvaluator('good', good, cases, bootstrap),
      bootstrap,
    );
    expect(comparison).toMatchObject({ a: 'bad', b: 'good', n_cases: 4, mean_diff: 2 });
    // Every difference is 2: zero width away from 0, so indeterminate, not real (no variance was estimated).
    expect(comparison.verdict).toBe('indeterminate');
  });
});

describe('dimensionAblation', () => {
  it('lists every non-empty subset once, smallest first', () => {
    const subsets = dimensionSubsets(['a', 'b', 'c', 'd', 'e']);
    expect(subsets).toHaveLength(31);
    expect(subsets[0]).toEqual(['a']);
    expect(subsets.at(-1)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(new Set(subsets.map((s) => s.join('+'))).size).toBe(31);
  });

  it('scores a subset by the mean of its dimensions, and leaves out a deck with one n/a', () => {
    const cases = [caseOf('c1', { x: ['A', 'B', 'C'] })];
    const scores = new Map([
      [
        'c1',
        new Map([
          ['A', { design: 90, fidelity: 10 }],
          ['B', { design: 50, fidelity: 50 }],
          ['C', { design: 10, fidelity: null }],
        ]),
      ],
    ]);
    const rows = dimensionAblation(scores, ['design', 'fidelity'], cases, bootstrap);
    expect(rows.map((row) => [row.evaluator, row.per_case.c1])).toEqual([
      ['rubric[design]', 1],
      // fidelity: A 10, B 50 against A first: disagree.
      ['rubric[fidelity]', -1],
      // design+fidelity: A 50, B 50 (C n/a): equal scores → 0.
      ['rubric[design+fidelity]', 0],
    ]);
  });
});
