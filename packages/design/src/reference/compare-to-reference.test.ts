import { describe, expect, it } from 'vitest';
import { compareToReference, keyTerms } from './compare-to-reference';
import { rougeL, slideWords } from './rouge-l';

const REFERENCE = [
  'Heat pumps in the pilot: 412 homes replaced gas boilers between 2022 and 2024',
  'Running costs fell by 18 percent compared with gas heating in the pilot homes',
  'Heat pumps move heat from a cold place to a warm place using electricity',
  'Next steps: extend the heat pump pilot to 2,000 homes and track running costs',
];

describe('ROUGE-L', () => {
  it('is the LCS F1, hand-computed', () => {
    // LCS("the cat sat on the mat", "the cat on a mat") = the cat on mat (4): P = 4/6, R = 4/5, F = 8/11.
    expect(rougeL(slideWords('The cat sat on the mat'), slideWords('the cat on a mat'))).toBeCloseTo(
      8 / 11,
      12,
    );
    expect(rougeL([], ['a'])).toBe(0);
    expect(rougeL(['x'], ['y'])).toBe(0);
  });
});

describe('compareToReference', () => {
  it('scores a deck against itself 1 on everything', () => {
    const self = compareToReference(REFERENCE, REFERENCE);
    expect(self).toMatchObject({ slide_count_ratio: 1, rouge_l: 1, order_tau: 1, key_term_recall: 1 });
    expect(self.matches.map((match) => [match.slide, match.reference_slide])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('keeps ROUGE-L and loses order tau on a shuffled copy', () => {
    const reversed = compareToReference([...REFERENCE].reverse(), REFERENCE);
    expect(reversed.rouge_l).toBe(1);
    expect(reversed.order_tau).toBe(-1);
    const shuffled = compareToReference(
      [REFERENCE[1]!, REFERENCE[0]!, REFERENCE[2]!, REFERENCE[3]!],
      REFERENCE,
    );
    expect(shuffled.rouge_l).toBe(1);
    expect(shuffled.order_tau).toBeCloseTo(2 / 3, 12);
  });

  it('counts a shorter deck against the larger slide count and finds key terms', () => {
    const half = compareToReference(REFERENCE.slice(0, 2), REFERENCE);
    expect(half.slide_count_ratio).toBe(0.5);
    expect(half.rouge_l).toBe(0.5);
    expect(half.matches).toHaveLength(2);
    expect(keyTerms(REFERENCE).slice(0, 3)).toEqual(['heat', 'home', 'pilot']);
    expect(half.key_term_recall).toBeGreaterThan(0);
    expect(half.key_term_recall).toBeLessThan(1);
    const unrelated = compareToReference(['Quarterly sales across Europe'], REFERENCE);
    expect(unrelated).toMatchObject({ matches: [], rouge_l: 0, order_tau: null, key_term_recall: 0 });
    expect(compareToReference([], [])).toMatchObject({
      slide_count_ratio: null,
      rouge_l: 0,
      key_term_recall: null,
    });
  });
});
