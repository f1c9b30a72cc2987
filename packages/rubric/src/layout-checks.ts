import type { BoundingBox, Deck, SlideElement } from '@xsb/core';
import type { LayoutCheckResult } from './schemas/rubric-evaluation';
import { countScripts, dominantScript, type Script, scriptOfLanguage } from './script-detection';
import { slideContentItems } from './slide-content-items';

/** Ids of the built-in deterministic checks, in report order. */
export const LAYOUT_CHECK_IDS = [
  'slide_count',
  'bullets_per_slide',
  'min_font_size',
  'text_overlap',
  'off_slide',
  'empty_slide',
  'language',
  'source_attribution',
] as const;
export type LayoutCheckId = (typeof LAYOUT_CHECK_IDS)[number];

export interface LayoutCheckOptions {
  /** Inclusive range; without it `slide_count` is undecidable (`passed: null`). */
  slideRange?: { min: number; max: number };
  /** The paper's instructions allow at most 6 bullet points ("readable content") a slide. */
  maxBullets: number;
  minFontSizePt: number;
  /** Intersection area over the smaller box's area above which two boxes overlap. */
  overlapTolerance: number;
  /** Pictures covering at least this share of the slide are backgrounds, not overlap partners. */
  backgroundAreaShare: number;
  offSlideTolerancePt: number;
  /** Expected deck language (`en`, `zh`); without it the deck's majority script is expected. */
  language?: string;
  /** Slides need at least this many letters before their script is judged. */
  minLettersForLanguage: number;
  /** Adds the `source_attribution` check (when the instruction demands a source on every slide). */
  requireSourceAttribution: boolean;
}

export const DEFAULT_LAYOUT_CHECK_OPTIONS: LayoutCheckOptions = {
  maxBullets: 6,
  minFontSizePt: 12,
  overlapTolerance: 0.1,
  backgroundAreaShare: 0.8,
  offSlideTolerancePt: 2,
  minLettersForLanguage: 10,
  requireSourceAttribution: false,
};

type Finding = { slide: number; detail: string };

function result(
  id: LayoutCheckId,
  findings: Finding[],
  passDetail: string,
  failDetail: string,
): LayoutCheckResult {
  const slides = [...new Set(findings.map((finding) => finding.slide))].sort((a, b) => a - b);
  return {
    id,
    passed: findings.length === 0,
    slides,
    detail:
      findings.length === 0
        ? passDetail
        : `${failDetail}: slide${slides.length > 1 ? 's' : ''} ${slides.join(', ')}`,
    findings,
  };
}

function undecidable(id: LayoutCheckId, detail: string): LayoutCheckResult {
  return { id, passed: null, slides: [], detail, findings: [] };
}

/** Elements with their group children, depth first; group boxes are assumed to be in slide coordinates. */
function flattenElements(elements: SlideElement[]): SlideElement[] {
  const out: SlideElement[] = [];
  for (const element of elements) {
    out.push(element);
    if (element.children) out.push(...flattenElements(element.children));
  }
  return out;
}

const hasText = (element: SlideElement): boolean => element.text.trim().length > 0;
const isVisual = (element: SlideElement): boolean =>
  element.kind === 'picture' || element.kind === 'table' || element.kind === 'chart';
/** Something the audience sees besides text: a picture, table, chart, or drawn shape / connector / diagram. */
const isNonTextContent = (element: SlideElement): boolean => isVisual(element) || element.kind === 'other';

const NO_SLIDES = 'the deck has no slides';

/** Slide count within the instruction's range (PresentBench's `check_slide_count`, before truncation). */
export function checkSlideCount(
  deck: Deck,
  range: { min: number; max: number } | undefined,
): LayoutCheckResult {
  const count = deck.slides.length;
  const slides = `${count} slide${count === 1 ? '' : 's'}`;
  if (count === 0) return { id: 'slide_count', passed: false, slides: [], detail: NO_SLIDES, findings: [] };
  if (!range) return undecidable('slide_count', `${slides}; no slide range given`);
  if (count >= range.min && count <= range.max) {
    return result('slide_count', [], `${slides}, within ${range.min}-${range.max}`, '');
  }
  const detail = `${slides}, too ${count < range.min ? 'few' : 'many'} (required ${range.min}-${range.max})`;
  return { id: 'slide_count', passed: false, slides: [], detail, findings: [] };
}

/**
 * Readable content items per slide (see `slideContentItems`): at most `maxBullets`. Every finding
 * names both counts: all content items, and those carrying bullet markup.
 */
export function checkBulletsPerSlide(deck: Deck, maxBullets: number): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('bullets_per_slide', NO_SLIDES);
  const findings: Finding[] = [];
  let most = 0;
  for (const slide of deck.slides) {
    const { items, bulleted } = slideContentItems(slide, deck.format);
    most = Math.max(most, items);
    if (items > maxBullets) {
      findings.push({
        slide: slide.index,
        detail: `${items} content items (${bulleted} with bullet markup; max ${maxBullets})`,
      });
    }
  }
  return result(
    'bullets_per_slide',
    findings,
    `at most ${most} content item${most === 1 ? '' : 's'} on a slide (max ${maxBullets})`,
    `more than ${maxBullets} content items`,
  );
}

export function checkMinFontSize(deck: Deck, minPt: number): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('min_font_size', NO_SLIDES);
  const findings: Finding[] = [];
  let sizesSeen = 0;
  for (const slide of deck.slides) {
    for (const element of flattenElements(slide.elements)) {
      if (!hasText(element) || element.font_sizes.length === 0) continue;
      sizesSeen += element.font_sizes.length;
      const smallest = Math.min(...element.font_sizes);
      if (smallest < minPt) {
        findings.push({
          slide: slide.index,
          detail: `${smallest} pt text "${excerpt(element.text)}" (min ${minPt} pt)`,
        });
      }
    }
  }
  if (sizesSeen === 0) return undecidable('min_font_size', 'the parsed deck carries no font sizes');
  return result('min_font_size', findings, `all text is at least ${minPt} pt`, `text below ${minPt} pt`);
}

function area(box: BoundingBox): number {
  return Math.max(0, box.width) * Math.max(0, box.height);
}

/** Intersection area over the smaller box's area (0 when they do not touch). */
export function overlapShare(a: BoundingBox, b: BoundingBox): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (width <= 0 || height <= 0) return 0;
  const smaller = Math.min(area(a), area(b));
  return smaller > 0 ? (width * height) / smaller : 0;
}

/**
 * Text over text or over a picture. Not applicable to PDF decks (their text lines carry estimated
 * boxes and their pictures and shapes are not read) and to decks without element positions.
 */
export function checkTextOverlap(deck: Deck, options: LayoutCheckOptions): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('text_overlap', NO_SLIDES);
  if (deck.format === 'pdf') {
    return undecidable(
      'text_overlap',
      'not applicable to PDF decks: text lines have estimated boxes and pictures are not read',
    );
  }
  const findings: Finding[] = [];
  let boxesSeen = 0;
  const slideArea =
    deck.slide_width && deck.slide_height ? deck.slide_width * deck.slide_height : Number.POSITIVE_INFINITY;
  for (const slide of deck.slides) {
    const elements = flattenElements(slide.elements).filter((element) => element.bbox !== null);
    boxesSeen += elements.length;
    const texts = elements.filter((element) => element.kind === 'text' && hasText(element));
    const pictures = elements.filter(
      (element) =>
        element.kind === 'picture' &&
        area(element.bbox as BoundingBox) < options.backgroundAreaShare * slideArea,
    );
    texts.forEach((text, index) => {
      for (const other of [...texts.slice(index + 1), ...pictures]) {
        const share = overlapShare(text.bbox as BoundingBox, other.bbox as BoundingBox);
        if (share > options.overlapTolerance) {
          const partner = other.kind === 'picture' ? 'a picture' : `text "${excerpt(other.text)}"`;
          findings.push({
            slide: slide.index,
            detail: `text "${excerpt(text.text)}" overlaps ${partner} (${Math.round(share * 100)}% of the smaller box)`,
          });
        }
      }
    });
  }
  if (boxesSeen === 0) return undecidable('text_overlap', 'the parsed deck carries no element positions');
  return result(
    'text_overlap',
    findings,
    'no text box overlaps another text box or a picture',
    'overlapping text',
  );
}

/**
 * Text, pictures, tables and charts within the slide. Without a slide size or any element position it
 * is not applicable; on a PDF deck only text lines are seen, so it fails on a line past the page edge
 * and is otherwise not applicable (pictures and shapes in PDFs are not read).
 */
export function checkOffSlide(deck: Deck, tolerancePt: number): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('off_slide', NO_SLIDES);
  const width = deck.slide_width;
  const height = deck.slide_height;
  if (!width || !height) return undecidable('off_slide', 'the parsed deck has no slide size');
  const findings: Finding[] = [];
  let placed = 0;
  for (const slide of deck.slides) {
    for (const element of flattenElements(slide.elements)) {
      const box = element.bbox;
      if (!box || !(hasText(element) || isVisual(element))) continue;
      placed += 1;
      const outside =
        box.x < -tolerancePt ||
        box.y < -tolerancePt ||
        box.x + box.width > width + tolerancePt ||
        box.y + box.height > height + tolerancePt;
      if (outside) {
        const what = hasText(element) ? `text "${excerpt(element.text)}"` : `a ${element.kind}`;
        findings.push({
          slide: slide.index,
          detail: `${what} at x=${round(box.x)} y=${round(box.y)} w=${round(box.width)} h=${round(box.height)} pt leaves the ${round(width)}x${round(height)} pt slide`,
        });
      }
    }
  }
  if (placed === 0) return undecidable('off_slide', 'the parsed deck carries no element positions');
  if (deck.format === 'pdf' && findings.length === 0) {
    return undecidable(
      'off_slide',
      'no text line leaves its page; pictures and shapes in PDF decks are not read, so they are not checked',
    );
  }
  return result('off_slide', findings, 'every element lies on its slide', 'content outside the slide');
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * Empty or title-only slides. A slide is empty when it holds no visible text and no picture, table,
 * chart or drawn shape; title-only when its only text is its title (the title placeholder, or the
 * title `@xsb/decks` infers for text-box slides) and it holds nothing else. PDF text positions show no
 * pictures, so a PDF page without text may be an image slide: such pages make the check undecidable
 * (`passed: null`) rather than failed, unless another slide fails outright.
 */
export function checkEmptySlides(deck: Deck): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('empty_slide', NO_SLIDES);
  const findings: Finding[] = [];
  const textlessPdfPages: number[] = [];
  for (const slide of deck.slides) {
    const elements = flattenElements(slide.elements);
    if (elements.some(isNonTextContent)) continue;
    const text = normalise(slide.visible_text);
    if (text.length === 0 && deck.format === 'pdf') textlessPdfPages.push(slide.index);
    else if (text.length === 0) findings.push({ slide: slide.index, detail: 'empty slide' });
    else if (text === normalise(slide.title))
      findings.push({ slide: slide.index, detail: `title only: "${excerpt(text)}"` });
  }
  if (findings.length === 0 && textlessPdfPages.length > 0) {
    return undecidable(
      'empty_slide',
      `PDF page${textlessPdfPages.length > 1 ? 's' : ''} ${textlessPdfPages.join(', ')} carry no text (images in PDFs are not detected)`,
    );
  }
  return result('empty_slide', findings, 'no empty or title-only slide', 'empty or title-only');
}

export function checkLanguage(
  deck: Deck,
  language: string | undefined,
  minLetters: number,
): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('language', NO_SLIDES);
  if (language && !scriptOfLanguage(language)) {
    return undecidable('language', `no known script for language "${language}"`);
  }
  const deckScript = dominantScript(countScripts(deck.slides.map((slide) => slide.visible_text).join('\n')));
  const expected: Script | undefined = (language ? scriptOfLanguage(language) : undefined) ?? deckScript;
  if (!expected) return undecidable('language', 'the deck has no text');
  const findings: Finding[] = [];
  for (const slide of deck.slides) {
    const counts = countScripts(slide.visible_text);
    const letters = [...counts.values()].reduce((sum, count) => sum + count, 0);
    if (letters < minLetters) continue;
    const script = dominantScript(counts);
    if (script !== expected) {
      const share = Math.round(((counts.get(expected) ?? 0) / letters) * 100);
      findings.push({ slide: slide.index, detail: `mostly ${script} script (${share}% ${expected})` });
    }
  }
  return result('language', findings, `every slide is in ${expected} script`, `not in ${expected} script`);
}

const SOURCE_PATTERNS = [
  /\b(section|sec\.|chapter|ch\.|figure|fig\.|table|page|p\.|pp\.|slide)\s*[:#]?\s*\d/i,
  /\b(source|sources|reference|references|ref\.|adapted from|cited from)\s*:/i,
  /来源|出处|参考|第\s*\d+\s*[章节页]/,
];

export function checkSourceAttribution(deck: Deck): LayoutCheckResult {
  if (deck.slides.length === 0) return undecidable('source_attribution', NO_SLIDES);
  const findings: Finding[] = deck.slides
    .filter((slide) => !SOURCE_PATTERNS.some((pattern) => pattern.test(slide.visible_text)))
    .map((slide) => ({
      slide: slide.index,
      detail: 'no source attribution (section, chapter, figure, page or "Source:")',
    }));
  return result('source_attribution', findings, 'every slide names its source', 'no source attribution');
}

/** Every applicable layout check, in `LAYOUT_CHECK_IDS` order; pure over the parsed deck. */
export function runLayoutChecks(
  deck: Deck,
  overrides: Partial<LayoutCheckOptions> = {},
): LayoutCheckResult[] {
  const options = { ...DEFAULT_LAYOUT_CHECK_OPTIONS, ...overrides };
  const checks = [
    checkSlideCount(deck, options.slideRange),
    checkBulletsPerSlide(deck, options.maxBullets),
    checkMinFontSize(deck, options.minFontSizePt),
    checkTextOverlap(deck, options),
    checkOffSlide(deck, options.offSlideTolerancePt),
    checkEmptySlides(deck),
    checkLanguage(deck, options.language, options.minLettersForLanguage),
  ];
  if (options.requireSourceAttribution) checks.push(checkSourceAttribution(deck));
  return checks;
}

function excerpt(text: string): string {
  const flat = normalise(text);
  return flat.length > 40 ? `${flat.slice(0, 37)}...` : flat;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Share of slides without a finding, so one more bad slide lowers it (pass/fail would not move once failing). */
export function layoutCheckScore(check: LayoutCheckResult, slideCount: number): number | null {
  if (check.passed === null) return null;
  if (check.id === 'slide_count') return check.passed ? 1 : 0;
  if (slideCount === 0) return null;
  return 1 - new Set(check.slides).size / slideCount;
}
