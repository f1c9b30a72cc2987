/**
 * The result of each kind of item decision (pure): a check item, a layout check that replaces an
 * item, an item the offline judge leaves `not_judged`, and a judge's answer.
 */

import { type Deck, UsageError } from '@xsb/core';
import { citedSlides, type ItemJudgement } from './checklist-item-judge';
import {
  checkBulletsPerSlide,
  checkEmptySlides,
  checkLanguage,
  checkMinFontSize,
  checkOffSlide,
  checkSlideCount,
  checkSourceAttribution,
  checkTextOverlap,
  type LayoutCheckOptions,
} from './layout-checks';
import type { RubricInstance } from './rubric-instance';
import type { LayoutCheckResult, RubricItemResult } from './schemas/rubric-evaluation';

type ItemFields = Omit<RubricItemResult, 'key' | 'section' | 'class_id' | 'dimension'>;
type CheckItem = Exclude<RubricInstance['checklists']['fundamentals'][number], string>;

/** An item a layout check decides in its place (`--layout-checks replace`). */
export function replacedItemResult(layoutCheck: LayoutCheckResult): ItemFields {
  return {
    kind: 'llm',
    verdict: layoutCheck.passed ? 'yes' : 'no',
    raw_answer: null,
    answer: layoutCheck.passed ? 'yes' : 'no',
    explanation: `[judged by code] ${layoutCheck.detail}`,
    cited_slides: layoutCheck.slides,
    attempts: 0,
    layout_check: layoutCheck,
    decided_by_check: true,
  };
}

/** An LLM item under the offline judge: not judged, with its matching layout check beside it. */
export function offlineItemResult(layoutCheck: LayoutCheckResult | undefined): ItemFields {
  return {
    kind: 'llm',
    verdict: 'not_judged',
    raw_answer: null,
    answer: null,
    explanation: null,
    cited_slides: [],
    attempts: 0,
    ...(layoutCheck ? { layout_check: layoutCheck } : {}),
  };
}

/** A judge's answer to an item (`error` when no answer read), citing slides of the judged deck. */
export function judgedItemResult(
  judgement: ItemJudgement,
  judgedSlides: number,
  layoutCheck: LayoutCheckResult | undefined,
): ItemFields {
  return {
    kind: 'llm',
    verdict: judgement.verdict ?? 'error',
    raw_answer: judgement.raw,
    answer: judgement.answer,
    explanation: judgement.explanation,
    cited_slides: judgement.explanation ? citedSlides(judgement.explanation, judgedSlides) : [],
    attempts: judgement.attempts,
    ...(judgement.log ? { log: judgement.log } : {}),
    ...(layoutCheck ? { layout_check: layoutCheck } : {}),
  };
}

/**
 * A deterministic item. The slide count reads as PresentBench's `check_slide_count` writes it
 * (answer, and explanation word for word); an undecidable check is unanswered, as judge.py stores a
 * callable that raised (`answer: null`, `log: "Error: …"`).
 */
export function checkItemResult(
  item: CheckItem,
  counted: Deck,
  judged: Deck,
  options: LayoutCheckOptions,
): ItemFields {
  const check = runCheckItem(item.check, item.params, counted, judged, options);
  const common = { kind: 'check', cited_slides: check.slides, attempts: 0, check_id: item.check } as const;
  if (check.passed === null) {
    return {
      ...common,
      verdict: 'error',
      raw_answer: null,
      answer: null,
      explanation: null,
      log: `Error: ${check.detail}`,
    };
  }
  const answer = check.passed ? 'yes' : 'no';
  const explanation =
    item.check === 'slide_count'
      ? slideCountExplanation(counted.slides.length, item.params, options)
      : `[judged by code] ${check.detail}`;
  return { ...common, verdict: answer, raw_answer: answer, answer, explanation };
}

/** `utils/count_pages.py: check_slide_count`'s explanation. */
function slideCountExplanation(
  count: number,
  params: Record<string, unknown>,
  options: LayoutCheckOptions,
): string {
  const min = typeof params.min_count === 'number' ? params.min_count : (options.slideRange?.min ?? 1);
  const max = typeof params.max_count === 'number' ? params.max_count : (options.slideRange?.max ?? count);
  const range = `${min}-${max}`;
  if (count >= min && count <= max) {
    return `[judged by code] The number of slides is ${count}, which is within the required range of ${range}.`;
  }
  return `[judged by code] The number of slides is ${count}, which is too ${count < min ? 'few' : 'many'}. The required range is ${range} slides.`;
}

/** A check item of the instance, by built-in id; slide_count sees `counted` (see `slideCountOn`). */
function runCheckItem(
  id: string,
  params: Record<string, unknown>,
  counted: Deck,
  judged: Deck,
  options: LayoutCheckOptions,
): LayoutCheckResult {
  const number = (name: string, fallback: number): number => {
    const value = params[name];
    return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
  };
  switch (id) {
    case 'slide_count':
      return checkSlideCount(counted, {
        min: number('min_count', options.slideRange?.min ?? 1),
        max: number('max_count', options.slideRange?.max ?? Number.MAX_SAFE_INTEGER),
      });
    case 'bullets_per_slide':
      return checkBulletsPerSlide(judged, number('max', options.maxBullets));
    case 'min_font_size':
      return checkMinFontSize(judged, number('min_pt', options.minFontSizePt));
    case 'text_overlap':
      return checkTextOverlap(judged, {
        ...options,
        overlapTolerance: number('tolerance', options.overlapTolerance),
      });
    case 'off_slide':
      return checkOffSlide(judged, number('tolerance_pt', options.offSlideTolerancePt));
    case 'empty_slide':
      return checkEmptySlides(judged);
    case 'language':
      return checkLanguage(
        judged,
        typeof params.language === 'string' ? params.language : options.language,
        options.minLettersForLanguage,
      );
    case 'source_attribution':
      return checkSourceAttribution(judged);
    default:
      throw new UsageError(`unknown built-in check "${id}"`);
  }
}
