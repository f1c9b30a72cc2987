import { describe, expect, it } from 'vitest';
import { decodeUtf8Text, extractPlainText } from './decode-utf8-text';

describe('decodeUtf8Text', () => {
  it('removes a byte-order mark and normalises line ends', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('a\r\nb\rc\n')]);
    expect(decodeUtf8Text(bytes, 'x.md')).toBe('a\nb\nc\n');
  });

  it('keeps multi-byte characters', () => {
    expect(decodeUtf8Text(new TextEncoder().encode('Größe 5 °C — 熱'), 'x.txt')).toBe('Größe 5 °C — 熱');
  });

  it('rejects invalid UTF-8 (a lone continuation byte, an overlong form) naming the file', () => {
    expect(() => decodeUtf8Text(new Uint8Array([0x61, 0x80]), 'notes.md')).toThrow(
      /^notes\.md: file is not valid UTF-8/,
    );
    expect(() => decodeUtf8Text(new Uint8Array([0xc0, 0xaf]), 'notes.md')).toThrow(/not valid UTF-8/);
  });
});

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
