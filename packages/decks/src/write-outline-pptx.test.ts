import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeckOutline } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDeck } from './read-deck';
import { writeOutlinePptx } from './write-outline-pptx';

const categories = Array.from({ length: 12 }, (_, index) => `Month ${index + 1}`);
const OUTLINE: DeckOutline = {
  title: 'Twelve months',
  subtitle: '',
  slides: [
    { title: 'Plan', bullets: ['First point here.', 'Second point here.'], notes: 'speaker only' },
    {
      title: 'Share by month',
      bullets: [],
      chart: {
        type: 'pie',
        title: 'Share',
        categories,
        series: [{ name: 'Share', values: categories.map((_, i) => i + 1) }],
      },
    },
  ],
};

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-outline-'));
});
afterEach(async () => cleanup());

describe('writeOutlinePptx', () => {
  it('writes byte-identical decks for the same outline, even with many chart categories', async () => {
    await writeOutlinePptx(OUTLINE, join(dir, 'a.pptx'));
    await writeOutlinePptx(OUTLINE, join(dir, 'b.pptx'));
    expect((await readFile(join(dir, 'a.pptx'))).equals(await readFile(join(dir, 'b.pptx')))).toBe(true);
  });

  it('puts titles in title placeholders, bullets in the body, notes apart, at readable sizes', async () => {
    const count = await writeOutlinePptx(OUTLINE, join(dir, 'deck.pptx'));
    const deck = await readDeck(join(dir, 'deck.pptx'));
    expect(deck.slide_count).toBe(count);
    expect(deck.slides.map((slide) => slide.title)).toEqual(['Twelve months', 'Plan', 'Share by month']);
    const body = deck.slides[1]?.elements.find((element) => element.bullet_count);
    expect(body).toMatchObject({
      text: 'First point here.\nSecond point here.',
      font_sizes: [20, 20],
      bullet_count: 2,
    });
    expect(deck.slides[1]?.notes).toBe('speaker only');
    expect(deck.slides[1]?.visible_text).not.toContain('speaker only');
    expect(deck.slides[2]?.elements.map((element) => element.kind)).toEqual(['text', 'chart']);
    expect(deck.slide_width).toBe(720);
    expect(deck.slide_height).toBe(405);
  });
});
