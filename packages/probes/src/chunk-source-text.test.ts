import { describe, expect, it } from 'vitest';
import { chunkSourceText } from './chunk-source-text';

const source = 'abcdefghijklmnopqrstuvwxyz';

describe('chunkSourceText', () => {
  it('sends the whole source as one chunk when chunkChars <= 0', () => {
    for (const size of [0, -5]) {
      const chunks = chunkSourceText(source, size, 3);
      expect(chunks).toHaveLength(1);
      expect(chunks[0]!.text).toBe(`[Source chunk chars 0-26]\n${source}`);
    }
  });

  it('sends one chunk when the source is not longer than chunkChars', () => {
    expect(chunkSourceText(source, 26, 0)).toHaveLength(1);
    expect(chunkSourceText(source, 100, 0).map((c) => [c.start, c.end])).toEqual([[0, 26]]);
  });

  it('makes windows of chunkChars with step chunkChars - overlap, the last reaching the end', () => {
    const chunks = chunkSourceText(source, 10, 3);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [7, 17],
      [14, 24],
      [21, 26],
    ]);
    expect(chunks[1]!.text).toBe('[Source chunk chars 7-17]\nhijklmnopq');
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it('treats a negative overlap as 0 and keeps a step of at least 1', () => {
    expect(chunkSourceText(source, 10, -4).map((c) => c.start)).toEqual([0, 10, 20]);
    const stepOne = chunkSourceText('abcdef', 3, 7);
    expect(stepOne.map((c) => [c.start, c.end])).toEqual([
      [0, 3],
      [1, 4],
      [2, 5],
      [3, 6],
    ]);
  });

  it('covers every character of the source', () => {
    const text = 'x'.repeat(1000);
    const chunks = chunkSourceText(text, 97, 13);
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(1000);
    for (let i = 1; i < chunks.length; i += 1)
      expect(chunks[i]!.start).toBeLessThanOrEqual(chunks[i - 1]!.end);
  });
});
