import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isXsbError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureDeckDesign } from './measure-deck-design';
import { measureSlideDesign } from './measure-slide-design';
import { type DesignRecord, designRecordSchema } from './schemas/design-record';
import { buildColoredTextPptx } from './testing';

const PDF_DECK = fileURLToPath(
  new URL('../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf', import.meta.url),
);

let root: string;
let cleanup: () => Promise<void>;
let contrastDeck: DesignRecord;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('xsb-design-'));
  const deck = join(root, 'contrast.pptx');
  await writeFile(
    deck,
    buildColoredTextPptx([
      {
        title: 'Light grey title',
        body: 'Light grey words nobody can read from the back row',
        color: 'D3D3D3',
      },
      { title: 'Black title', body: 'Black words everybody can read from the back row', color: '000000' },
    ]),
  );
  contrastDeck = await measureDeckDesign(deck, { keepRendersDir: join(root, 'renders') });
}, 120_000);
afterAll(() => cleanup());

describe('measureDeckDesign on a PPTX rendered by LibreOffice', () => {
  it('finds the light grey text under 3:1 and the black text far above it, and names the slide', () => {
    const [grey, black] = contrastDeck.slides;
    expect(grey).toMatchObject({ index: 1, text_elements: 2, contrast_below_3: 2, contrast_below_4_5: 2 });
    expect(grey!.contrast_min).toBeLessThan(3);
    expect(black).toMatchObject({ index: 2, text_elements: 2, contrast_below_3: 0, contrast_below_4_5: 0 });
    expect(black!.contrast_min).toBeGreaterThan(15);
    expect(contrastDeck.deck.low_contrast_slides).toEqual([1]);
    expect(contrastDeck.deck.slide_count).toBe(2);
    // Grey and black text on white: no hue, colourless, mostly background.
    for (const slide of contrastDeck.slides) {
      expect(slide.colorfulness).toBeLessThan(1);
      expect(slide.harmony).toBe(0);
      expect(slide.whitespace).toBeGreaterThan(0.8);
    }
    expect(designRecordSchema.parse(contrastDeck)).toEqual(contrastDeck);
    expect(contrastDeck.render).toEqual({ width_px: 960, renderer: 'libreoffice+pdf.js' });
  });

  it('keeps the exact images it measured as slide-<n>.png, 1-based', async () => {
    expect(existsSync(join(root, 'renders', 'slide-1.png'))).toBe(true);
    expect(existsSync(join(root, 'renders', 'slide-2.png'))).toBe(true);
    const { data, info } = await sharp(await readFile(join(root, 'renders', 'slide-2.png')))
      .flatten({ background: '#ffffff' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(info.width).toBe(960);
    const again = measureSlideDesign(
      { width: info.width, height: info.height, data: new Uint8Array(data) },
      [],
      2,
    );
    expect(again.colorfulness).toBe(contrastDeck.slides[1]!.colorfulness);
    expect(again.complexity).toBe(contrastDeck.slides[1]!.complexity);
  });
});

describe('measureDeckDesign on a PDF deck and on bad input', () => {
  it('measures every page of a PDF without LibreOffice, the same way twice', async () => {
    const first = await measureDeckDesign(PDF_DECK);
    expect(first.render.renderer).toBe('pdf.js');
    expect(first.slides.length).toBeGreaterThan(1);
    expect(first.slides.every((slide, i) => slide.index === i + 1)).toBe(true);
    expect(first.deck.consistency.colorfulness).toBeGreaterThanOrEqual(0);
    expect(await measureDeckDesign(PDF_DECK)).toEqual(first);
  });

  it('names the file of a corrupt or missing deck', async () => {
    const corrupt = join(root, 'corrupt.pdf');
    await writeFile(corrupt, '%PDF-1.4 this is not a PDF');
    for (const file of [corrupt, join(root, 'missing.pptx')]) {
      const error = await measureDeckDesign(file).catch((caught: unknown) => caught);
      expect(isXsbError(error) && error.kind).toBe('input');
      expect((error as Error).message).toContain(file);
    }
  });
});
