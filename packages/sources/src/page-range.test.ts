import { describe, expect, it } from 'vitest';
import { assertPagesExist, parsePageRange } from './page-range';

describe('parsePageRange', () => {
  it('reads pages and ranges, merged and sorted, with a canonical spelling', () => {
    expect(parsePageRange('1-40')).toEqual({
      spec: '1-40',
      pages: Array.from({ length: 40 }, (_, i) => i + 1),
    });
    expect(parsePageRange('9, 1-5,3,6')).toEqual({ spec: '1-6,9', pages: [1, 2, 3, 4, 5, 6, 9] });
    expect(parsePageRange('7').spec).toBe('7');
  });

  it('refuses page 0, backwards ranges and anything else as usage errors naming the flag', () => {
    for (const [value, reason] of [
      ['0', /numbered from 1/],
      ['0-3', /numbered from 1/],
      ['5-2', /the range 5-2 runs backwards/],
      ['', /empty item/],
      ['1,,2', /empty item/],
      ['1-', /"1-" is not a page or a range/],
      ['first', /not a page or a range/],
    ] as const) {
      let error: unknown;
      try {
        parsePageRange(value);
      } catch (caught) {
        error = caught;
      }
      expect(error, value).toMatchObject({ kind: 'usage' });
      expect((error as Error).message).toMatch(/^page range /);
      expect((error as Error).message).toMatch(reason);
    }
  });

  it('refuses pages beyond the document', () => {
    expect(() => assertPagesExist(parsePageRange('1-40'), 117, 'book.pdf')).not.toThrow();
    expect(() => assertPagesExist(parsePageRange('100-120'), 117, 'book.pdf')).toThrow(
      /book\.pdf has 117 pages, so page 118 does not exist/,
    );
  });
});
