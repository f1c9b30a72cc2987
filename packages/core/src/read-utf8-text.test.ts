import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeUtf8Text, readUtf8Text } from './read-utf8-text';
import { makeTempDir } from './testing';

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

describe('readUtf8Text', () => {
  it('reads a file as strict UTF-8 and names a missing or invalid file', async () => {
    const { dir, cleanup } = await makeTempDir();
    const good = join(dir, 'a.yaml');
    const bad = join(dir, 'b.md');
    await writeFile(good, '\uFEFFkey: wert äöü\r\n');
    await writeFile(bad, Buffer.from([0x61, 0xff]));
    expect(await readUtf8Text(good)).toBe('key: wert äöü\n');
    await expect(readUtf8Text(bad)).rejects.toThrow(`${bad}: file is not valid UTF-8`);
    await expect(readUtf8Text(join(dir, 'none.md'))).rejects.toThrow(/none\.md: file not found/);
    await cleanup();
  });
});
