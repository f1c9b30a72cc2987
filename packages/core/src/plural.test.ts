import { describe, expect, it } from 'vitest';
import { plural } from './plural';

describe('plural', () => {
  it('uses the singular for exactly one and the plural otherwise', () => {
    expect(plural(1, 'case')).toBe('1 case');
    expect(plural(0, 'case')).toBe('0 cases');
    expect(plural(3, 'case')).toBe('3 cases');
    expect(plural(1, 'batch', 'batches')).toBe('1 batch');
    expect(plural(2, 'batch', 'batches')).toBe('2 batches');
  });
});
