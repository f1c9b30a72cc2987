import { describe, expect, it } from 'vitest';
import { sampleCases, seededShuffle } from './sample-cases';

const cases = [
  ...['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].map((id) => ({ case: id, stratum: 'lecture' })),
  ...['b1', 'b2', 'b3'].map((id) => ({ case: id, stratum: 'pitch' })),
  { case: 'c1', stratum: 'briefing' },
];

describe('sampleCases', () => {
  it('gives each scene its share by largest remainder, seeded and reproducible', () => {
    // n = 5 of 10: exact shares lecture 3, pitch 1.5, briefing 0.5 → 3, then the largest remainders:
    // pitch (0.5, 3 cases) before briefing (0.5, 1 case) → lecture 3, pitch 2, briefing 0.
    const sample = sampleCases(cases, 5, 11);
    const byScene = (scene: string) => sample.filter((c) => c.stratum === scene).length;
    expect([byScene('lecture'), byScene('pitch'), byScene('briefing')]).toEqual([3, 2, 0]);
    expect(sampleCases(cases, 5, 11)).toEqual(sample);
    expect(sample.map((c) => c.case)).toEqual([...sample.map((c) => c.case)].sort());
    const other = new Set(
      [1, 2, 3, 4, 5, 6, 7, 8].map((seed) =>
        sampleCases(cases, 5, seed)
          .map((c) => c.case)
          .join(),
      ),
    );
    expect(other.size).toBeGreaterThan(1);
  });

  it('takes every case when the sample covers them', () => {
    expect(sampleCases(cases, 40, 1).map((c) => c.case)).toEqual(cases.map((c) => c.case).sort());
  });

  it('shuffles a copy as a permutation', () => {
    const items = [1, 2, 3, 4, 5, 6, 7];
    const shuffled = seededShuffle(items, 5);
    expect([...shuffled].sort()).toEqual(items);
    expect(items).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seededShuffle(items, 5)).toEqual(shuffled);
  });
});
