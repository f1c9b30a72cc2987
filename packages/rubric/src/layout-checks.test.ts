import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkEmptySlides,
  checkLanguage,
  checkOffSlide,
  checkSourceAttribution,
  checkTextOverlap,
  DEFAULT_LAYOUT_CHECK_OPTIONS,
  overlapShare,
  runLayoutChecks,
} from './layout-checks';
import { deckOf, slideOf, textElement } from './testing';
import { writeLayoutFixtureDecks } from './write-layout-fixture-decks';

const byId = (checks: ReturnType<typeof runLayoutChecks>) =>
  Object.fromEntries(checks.map((check) => [check.id, check]));

describe('layout checks on Deck objects', () => {
  it('measures overlap as a share of the smaller box', () => {
    expect(overlapShare({ x: 0, y: 0, width: 10, height: 10 }, { x: 5, y: 5, width: 10, height: 10 })).toBe(
      0.25,
    );
    expect(overlapShare({ x: 0, y: 0, width: 10, height: 10 }, { x: 10, y: 0, width: 5, height: 5 })).toBe(0);
  });

  it('ignores a full-slide background picture and touching boxes, flags text over a picture', () => {
    const background = {
      kind: 'picture' as const,
      bbox: { x: 0, y: 0, width: 720, height: 405 },
      text: '',
      font_sizes: [],
      placeholder: false,
    };
    const photo = { ...background, bbox: { x: 300, y: 100, width: 200, height: 200 } };
    const clean = deckOf([
      slideOf(1, 'A', [
        background,
        textElement('Title', { x: 36, y: 20, width: 600, height: 60 }),
        textElement('Body', { x: 36, y: 80, width: 600, height: 200 }),
      ]),
    ]);
    expect(checkTextOverlap(clean, DEFAULT_LAYOUT_CHECK_OPTIONS).passed).toBe(true);
    const covered = deckOf([
      slideOf(1, 'A', [photo, textElement('Caption', { x: 320, y: 150, width: 100, height: 40 })]),
    ]);
    expect(checkTextOverlap(covered, DEFAULT_LAYOUT_CHECK_OPTIONS)).toMatchObject({
      passed: false,
      slides: [1],
    });
  });

  it('calls a title-only slide out, and is undecidable without slide size', () => {
    const deck = deckOf([
      slideOf(1, 'Agenda', [textElement('Agenda', { x: 0, y: 0, width: 100, height: 40 })]),
    ]);
    expect(checkEmptySlides(deck)).toMatchObject({ passed: false, slides: [1] });
    expect(checkEmptySlides(deck).findings[0]?.detail).toMatch(/title only/);
    expect(checkOffSlide({ ...deck, slide_width: null }, 2).passed).toBeNull();
    // a text-less PDF page may be an image slide: undecidable, not failed
    const pdf = deckOf([
      slideOf(1, '', []),
      slideOf(2, 'B', [textElement('Body', { x: 0, y: 50, width: 100, height: 40 })]),
    ]);
    expect(checkEmptySlides({ ...pdf, format: 'pdf' })).toMatchObject({ passed: null, slides: [] });
    expect(checkEmptySlides(pdf)).toMatchObject({ passed: false, slides: [1] });
  });

  it('expects the instance language and tolerates short English terms on a Chinese slide', () => {
    const deck = deckOf([
      slideOf(1, '', [
        textElement('比特是二进制数字，用于表示信息 (bit, CPU)', { x: 0, y: 0, width: 100, height: 40 }),
      ]),
      slideOf(2, '', [
        textElement('Main memory is organised in cells', { x: 0, y: 0, width: 100, height: 40 }),
      ]),
    ]);
    expect(checkLanguage(deck, 'zh', 10)).toMatchObject({ passed: false, slides: [2] });
    expect(checkLanguage(deck, 'en', 10)).toMatchObject({ passed: false, slides: [1] });
  });

  it('requires a source line on every slide when asked', () => {
    const deck = deckOf([
      slideOf(1, '', [textElement('Bits (Section 1.1)', { x: 0, y: 0, width: 100, height: 40 })]),
      slideOf(2, '', [textElement('Memory cells', { x: 0, y: 0, width: 100, height: 40 })]),
    ]);
    expect(checkSourceAttribution(deck)).toMatchObject({ passed: false, slides: [2] });
    expect(runLayoutChecks(deck).map((check) => check.id)).not.toContain('source_attribution');
    expect(runLayoutChecks(deck, { requireSourceAttribution: true }).map((check) => check.id)).toContain(
      'source_attribution',
    );
  });
});

describe('layout checks on PPTX decks generated with pptxgenjs', () => {
  let paths: { clean: string; defects: string };
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const temp = await makeTempDir('xsb-rubric-layout-');
    cleanup = temp.cleanup;
    paths = await writeLayoutFixtureDecks(temp.dir);
  });
  afterAll(async () => cleanup());

  it('passes the clean deck on every check', async () => {
    const checks = runLayoutChecks(await readDeck(paths.clean), {
      slideRange: { min: 3, max: 6 },
      language: 'en',
      requireSourceAttribution: true,
    });
    for (const check of checks)
      expect({ id: check.id, passed: check.passed, detail: check.detail }).toMatchObject({ passed: true });
    expect(checks).toHaveLength(8);
  });

  it('finds every planted defect on its slide', async () => {
    const checks = byId(
      runLayoutChecks(await readDeck(paths.defects), { slideRange: { min: 3, max: 6 }, language: 'en' }),
    );
    expect(checks.slide_count).toMatchObject({ passed: false });
    expect(checks.slide_count?.detail).toMatch(/7 slides, too many/);
    expect(checks.bullets_per_slide).toMatchObject({ passed: false, slides: [2] });
    expect(checks.bullets_per_slide?.findings[0]?.detail).toBe(
      '8 content items (8 with bullet markup; max 6)',
    );
    expect(checks.min_font_size).toMatchObject({ passed: false, slides: [3] });
    expect(checks.min_font_size?.findings[0]?.detail).toMatch(/^10 pt text/);
    expect(checks.text_overlap).toMatchObject({ passed: false, slides: [4] });
    expect(checks.text_overlap?.findings.map((finding) => finding.detail)).toEqual([
      'text "First text box with its own content" overlaps text "Second text box drawn over the first" (53% of the smaller box)',
      'text "Second text box drawn over the first" overlaps a picture (22% of the smaller box)',
    ]);
    expect(checks.empty_slide).toMatchObject({ passed: false, slides: [5] });
    expect(checks.off_slide).toMatchObject({ passed: false, slides: [6] });
    expect(checks.off_slide?.findings[0]?.detail).toMatch(/x=576 .* w=288 .*720x405/);
    expect(checks.language).toMatchObject({ passed: false, slides: [7] });
  });
});
