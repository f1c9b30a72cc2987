import { describe, expect, it } from 'vitest';
import { bradleyTerry } from './bradley-terry';

const games = (winner: string, loser: string, times: number) =>
  Array.from({ length: times }, () => ({ winner, loser }));

describe('bradleyTerry', () => {
  it('is the maximum-likelihood fit without a prior: 3 wins to 1 is a strength ratio of 3', () => {
    const strengths = bradleyTerry(['a', 'b'], [...games('a', 'b', 3), ...games('b', 'a', 1)], { prior: 0 });
    expect(Math.exp(strengths.get('a')! - strengths.get('b')!)).toBeCloseTo(3, 9);
    expect(strengths.get('a')! + strengths.get('b')!).toBeCloseTo(0, 12);
  });

  it('gives equal strengths to items with equal records, and keeps an order that the data show', () => {
    const even = bradleyTerry(['a', 'b'], [...games('a', 'b', 2), ...games('b', 'a', 2)]);
    expect(even.get('a')).toBeCloseTo(0, 12);
    const chain = bradleyTerry(
      ['a', 'b', 'c'],
      [
        ...games('a', 'b', 3),
        ...games('b', 'a', 1),
        ...games('b', 'c', 3),
        ...games('c', 'b', 1),
        ...games('a', 'c', 2),
      ],
    );
    expect(chain.get('a')!).toBeGreaterThan(chain.get('b')!);
    expect(chain.get('b')!).toBeGreaterThan(chain.get('c')!);
  });

  it('keeps a never-beaten item finite with the prior, and refuses unknown items', () => {
    const strengths = bradleyTerry(['a', 'b'], games('a', 'b', 4));
    expect(Number.isFinite(strengths.get('a')!)).toBe(true);
    expect(strengths.get('a')!).toBeGreaterThan(strengths.get('b')!);
    expect(() => bradleyTerry(['a'], [{ winner: 'a', loser: 'z' }])).toThrow(/unknown or equal/);
  });
});
