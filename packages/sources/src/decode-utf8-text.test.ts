import { describe, expect, it } from 'vitest';
import { extractPlainText } from './decode-utf8-text';

describe('extractPlainText', () => {
  it('keeps markdown as written apart from trailing spaces and long blank runs', () => {
    expect(extractPlainText(new TextEncoder().encode('# Title  \n\n\n\nBody *bold*\n'), 'a.md')).toBe(
      '# Title\n\nBody *bold*',
    );
  });

  it('fails for a file with only whitespace', () => {
    expect(() => extractPlainText(new TextEncoder().encode(' \n\t\n'), 'empty.txt')).toThrow(
      /^empty\.txt: the file holds no text/,
    );
  });
});
