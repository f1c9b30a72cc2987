import { describe, expect, it } from 'vitest';
import { jaccardSimilarity, normalizeText, overlapCoefficient, tokenSet } from './text-tokens';

describe('normalizeText', () => {
  it('folds case, whitespace, punctuation, typographic quotes and dashes', () => {
    expect(normalizeText('  The “Model”—a\tTRANSFORMER’s   core… ')).toBe('the model a transformer s core');
    expect(normalizeText('ﬁrst 1–2')).toBe('first 1 2');
  });
});

describe('similarities', () => {
  const set = (text: string) => tokenSet(text);
  it('Jaccard is shared over union, 0 for two empty sets', () => {
    expect(jaccardSimilarity(set('a b c'), set('b c d'))).toBe(0.5);
    expect(jaccardSimilarity(set(''), set('...'))).toBe(0);
    expect(jaccardSimilarity(set('A, b!'), set('b a'))).toBe(1);
  });
  it('overlap coefficient is shared over the smaller set', () => {
    expect(overlapCoefficient(set('a b'), set('a b c d e'))).toBe(1);
    expect(overlapCoefficient(set('a b c d e'), set('a x'))).toBe(0.5);
    expect(overlapCoefficient(set(''), set('a'))).toBe(0);
  });
});
