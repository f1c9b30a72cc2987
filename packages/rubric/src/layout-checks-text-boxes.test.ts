import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Deck } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { convertPptxToPdf, findSoffice, readDeck } from '@xsb/decks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT_CHECK_OPTIONS, runLayoutChecks } from './layout-checks';
import { slideContentItems } from './slide-content-items';
import { deckOf, slideOf, textElement } from './testing';
import { writeTextBoxDeck } from './write-layout-fixture-decks';

const byId = (checks: ReturnType<typeof runLayoutChecks>) =>
  Object.fromEntries(checks.map((check) => [check.id, check]));

const sofficeMissing = (() => {
  try {
    findSoffice();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
})();

let pptx: Deck;
let pdf: Deck | undefined;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const temp = await makeTempDir('xsb-rubric-text-boxes-');
  cleanup = temp.cleanup;
  const file = await writeTextBoxDeck(temp.dir);
  pptx = await readDeck(file);
  if (!sofficeMissing) {
    const pdfFile = join(temp.dir, 'text-boxes.pdf');
    await convertPptxToPdf(file, pdfFile);
    pdf = await readDeck(pdfFile);
  }
}, 60_000);
afterAll(async () => cleanup());

describe('layout checks on a deck of plain text boxes (PPTX)', () => {
  it('infers each slide title from the topmost largest single-line text', () => {
    expect(pptx.slides.map((slide) => slide.title)).toEqual([
      'Nine Plain Lines',
      'Agenda',
      '',
      '',
      'Six Plain Lines',
      'One Wrapped Paragraph',
    ]);
  });

  it('counts content items with or without bullet markup: nine plain lines fail, six pass', () => {
    expect(pptx.slides.map((slide) => slideContentItems(slide, 'pptx'))).toEqual([
      { items: 9, bulleted: 0 },
      { items: 0, bulleted: 0 },
      { items: 0, bulleted: 0 },
      { items: 0, bulleted: 0 },
      { items: 6, bulleted: 0 },
      { items: 1, bulleted: 0 },
    ]);
    const bullets = byId(runLayoutChecks(pptx)).bullets_per_slide;
    expect(bullets).toMatchObject({ passed: false, slides: [1] });
    expect(bullets?.findings).toEqual([
      { slide: 1, detail: '9 content items (0 with bullet markup; max 6)' },
    ]);
  });

  it('fails a slide holding only its title; a picture or a drawn shape alone is not empty', () => {
    const empty = byId(runLayoutChecks(pptx)).empty_slide;
    expect(empty).toMatchObject({ passed: false, slides: [2] });
    expect(empty?.findings[0]?.detail).toBe('title only: "Agenda"');
  });
});

describe('layout checks on the same deck as PDF (LibreOffice)', () => {
  it('joins wrapped lines into one item and counts nine plain lines as nine', (context) => {
    context.skip(pdf === undefined, `LibreOffice is needed to make the PDF: ${sofficeMissing}`);
    const counts = (pdf as Deck).slides.map((slide) => slideContentItems(slide, 'pdf').items);
    expect(counts).toEqual([9, 0, 0, 0, 6, 1]);
    expect(byId(runLayoutChecks(pdf as Deck)).bullets_per_slide).toMatchObject({
      passed: false,
      slides: [1],
    });
  });

  it('reports overlap and off-slide as not applicable, never as a pass', (context) => {
    context.skip(pdf === undefined, `LibreOffice is needed to make the PDF: ${sofficeMissing}`);
    const checks = byId(runLayoutChecks(pdf as Deck));
    expect(checks.text_overlap).toMatchObject({
      passed: null,
      detail: expect.stringMatching(/not applicable to PDF decks/),
    });
    expect(checks.off_slide).toMatchObject({
      passed: null,
      detail: expect.stringMatching(/pictures and shapes in PDF decks are not read/),
    });
    // the title-only page fails; text-less pages (picture, shape) may be image slides
    expect(checks.empty_slide).toMatchObject({ passed: false, slides: [2] });
  });
});

describe('decks without slides or geometry', () => {
  it('fails a deck with no slides and reports every per-slide check as not applicable', () => {
    const checks = byId(runLayoutChecks(deckOf([]), { requireSourceAttribution: true }));
    expect(checks.slide_count).toMatchObject({ passed: false, detail: 'the deck has no slides' });
    for (const id of [
      'bullets_per_slide',
      'min_font_size',
      'text_overlap',
      'off_slide',
      'empty_slide',
      'language',
      'source_attribution',
    ]) {
      expect(checks[id]).toMatchObject({ passed: null, detail: 'the deck has no slides' });
    }
  });

  it('reports overlap and off-slide as not applicable when no element has a position', () => {
    const deck = deckOf([
      slideOf(1, 'T', [textElement('T', { x: 0, y: 0, width: 1, height: 1 }, { bbox: null })]),
    ]);
    const checks = byId(runLayoutChecks(deck));
    expect(checks.text_overlap?.passed).toBeNull();
    expect(checks.off_slide).toMatchObject({
      passed: null,
      detail: 'the parsed deck carries no element positions',
    });
  });

  it('reads an unknown language code as not applicable, not as the deck majority', () => {
    const deck = deckOf([
      slideOf(1, '', [textElement('Plenty of English words here', { x: 0, y: 0, width: 100, height: 40 })]),
    ]);
    expect(
      byId(runLayoutChecks(deck, { ...DEFAULT_LAYOUT_CHECK_OPTIONS, language: 'xx' })).language,
    ).toMatchObject({
      passed: null,
      detail: 'no known script for language "xx"',
    });
  });

  it('fails the real no-slides.pptx of the shared corpus', async (context) => {
    const file = resolve(__dirname, '../../../../shared/corpus/pptx/no-slides.pptx');
    context.skip(!existsSync(file), 'the shared corpus (../shared/corpus) is not beside this clone');
    const checks = byId(runLayoutChecks(await readDeck(file)));
    expect(checks.slide_count?.passed).toBe(false);
  });
});
