import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deckStatsSchema, readJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeDeckStats } from './deck-stats';
import { readDeck } from './read-deck';
import { buildTestPptx } from './testing';
import { truncateDeck } from './truncate-deck';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-stats-'));
});
afterEach(async () => cleanup());

async function threeSlideDeck() {
  const file = join(dir, 'deck.pptx');
  await writeFile(
    file,
    buildTestPptx({
      slides: [
        { fileNumber: 1, title: 'One', bullets: ['alpha beta'], notes: 'never counted' },
        { fileNumber: 2, title: 'Two', bullets: ['gamma'] },
        { fileNumber: 3, title: 'Three', bullets: ['delta epsilon zeta'] },
      ],
    }),
  );
  return readDeck(file);
}

describe('writeDeckStats', () => {
  it('writes deck_stats.json exactly as spec 000 and the visible text it points to', async () => {
    const deck = await threeSlideDeck();
    const statsFile = join(dir, 'out', 'deck_stats.json');
    const textFile = join(dir, 'out', 'deck_text.txt');
    await writeDeckStats(deck, { statsFile, textFile });
    const stats = await readJson(statsFile, deckStatsSchema);
    // The raw file, not the parsed record: a schema parse would hide extra keys.
    expect(Object.keys(JSON.parse(await readFile(statsFile, 'utf8'))).sort()).toEqual(
      ['deck_path', 'extracted_text_path', 'parser', 'slide_count', 'visible_word_count', 'warnings'].sort(),
    );
    expect(stats).toMatchObject({
      slide_count: 3,
      visible_word_count: 9,
      parser: 'pptx',
      extracted_text_path: textFile,
    });
    const text = await readFile(textFile, 'utf8');
    expect(text).toBe(
      '[Slide 1]\nOne\nalpha beta\n\n[Slide 2]\nTwo\ngamma\n\n[Slide 3]\nThree\ndelta epsilon zeta\n',
    );
    expect(text).not.toContain('never counted');
  });
});

describe('truncateDeck', () => {
  it('keeps the first N slides, recounts words and records the cut', async () => {
    const deck = await threeSlideDeck();
    const cut = truncateDeck(deck, 2);
    expect(cut.slides.map((slide) => slide.title)).toEqual(['One', 'Two']);
    expect(cut.slide_count).toBe(2);
    expect(cut.visible_word_count).toBe(5);
    expect(cut.warnings).toContain('truncated from 3 to 2 slides');
    expect(truncateDeck(deck, 5)).toBe(deck);
    expect(() => truncateDeck(deck, -1)).toThrow(RangeError);
  });
});
