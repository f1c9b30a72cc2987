import { describe, expect, it } from 'vitest';
import { createSeededRandom, deriveSeed } from './seeded-random';

describe('seeded random numbers', () => {
  it('repeats its stream for a seed and derives distinct seeds per label', () => {
    const a = createSeededRandom(3);
    const b = createSeededRandom(3);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(1, 'b'));
    expect(deriveSeed(1, 'a')).toBe(deriveSeed(1, 'a'));
  });
});
