import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ZipArchive } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDeck } from './read-deck';
import type { DeckOutline } from './schemas/deck-outline';
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

  it('steps long titles and bullets down to sizes that fit, and keeps a lead-in clear of the table under it', async () => {
    const sentence =
      'The leader accepts commands from clients and replicates them to a majority of servers before it commits them.';
    const outline: DeckOutline = {
      title: 'Short',
      subtitle: '',
      slides: [
        { title: 'Short title', bullets: ['One short point.'] },
        {
          title: 'A much longer slide title that cannot possibly fit on a single line at thirty points',
          bullets: Array.from({ length: 6 }, () => sentence),
        },
        {
          title: 'Where it runs',
          bullets: ['Three systems.', 'All in production.'],
          table: {
            columns: ['System', 'Use'],
            rows: Array.from({ length: 8 }, (_, index) => [`system ${index}`, 'a key-value store']),
          },
        },
        {
          title: 'Savings',
          bullets: [],
          chart: {
            type: 'bar',
            title: 'Savings %',
            categories: ['North', 'South'],
            series: [{ name: 'Savings %', values: [35, 42] }],
          },
        },
        {
          title: 'Both',
          bullets: [],
          table: { columns: ['Site', 'Savings %'], rows: [['North', '35']] },
          chart: {
            type: 'line',
            title: '',
            categories: ['North', 'South'],
            series: [{ name: 'Savings %', values: [35, 42] }],
          },
        },
      ],
    };
    const file = join(dir, 'fit.pptx');
    await writeOutlinePptx(outline, file);
    const deck = await readDeck(file);
    const [, short, long, tableSlide] = deck.slides;
    expect(short?.elements.map((element) => element.font_sizes[0])).toEqual([30, 20]);
    const [longTitle, longBody] = long?.elements ?? [];
    expect(longTitle?.font_sizes[0]).toBeLessThan(30);
    expect(longBody?.font_sizes[0]).toBeLessThan(20);
    expect(longBody?.font_sizes[0]).toBeGreaterThanOrEqual(14);
    const [, lead, table] = tableSlide?.elements ?? [];
    expect(table?.kind).toBe('table');
    expect(Math.min(...(table?.font_sizes ?? []))).toBeGreaterThanOrEqual(12);
    expect((lead?.bbox?.y ?? 0) + (lead?.bbox?.height ?? 0)).toBeLessThanOrEqual(table?.bbox?.y ?? 0);
    const [, sideTable, sideChart] = deck.slides[5]?.elements ?? [];
    expect((sideTable?.bbox?.x ?? 0) + (sideTable?.bbox?.width ?? 0)).toBeLessThanOrEqual(
      sideChart?.bbox?.x ?? 0,
    );
    // A bar chart of positive figures starts at zero, and one series keeps one colour.
    const chartXml = ZipArchive.open(await readFile(file), file).readText('ppt/charts/chart1.xml') ?? '';
    expect(chartXml).toContain('<c:min val="0"/>');
    expect(chartXml).not.toContain('<c:dPt>');
  });
});
