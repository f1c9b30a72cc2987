import {
  type Deck,
  hashBytes,
  hashCanonicalJson,
  InputError,
  type LayoutCheckResult,
  mapWithConcurrency,
  type ProgressReporter,
  RUBRIC_DIMENSIONS,
  type RubricDimension,
  type RubricEvaluation,
  type RubricItemResult,
  type RubricUsage,
  silentProgress,
  UsageError,
} from '@xsb/core';
import { truncateDeck } from '@xsb/decks';
import type { LlmClient, TokenUsage } from '@xsb/llm';
import {
  addUsage,
  buildChecklistRequest,
  buildSharedPrefix,
  citedSlides,
  judgeChecklistItem,
  type MaterialText,
  renderDeckForJudge,
  renderMaterialForJudge,
} from './checklist-item-judge';
import {
  checkBulletsPerSlide,
  checkEmptySlides,
  checkLanguage,
  checkMinFontSize,
  checkOffSlide,
  checkSlideCount,
  checkSourceAttribution,
  checkTextOverlap,
  DEFAULT_LAYOUT_CHECK_OPTIONS,
  type LayoutCheckOptions,
  runLayoutChecks,
} from './layout-checks';
import { DIMENSION_CLASSES, type RubricInstance } from './rubric-instance';
import { standInCheckFor } from './stand-in-checks';

/** How the deterministic checks relate to the LLM items they match (see `standInCheckFor`). */
export type StandInMode = 'beside' | 'replace' | 'off';

export interface EvaluateDeckOptions {
  instance: RubricInstance;
  /** The parsed deck, before truncation. */
  deck: Deck;
  materials: MaterialText[];
  /**
   * The deck's PDF bytes, sent to the judge as a document before the text rendering (PresentBench
   * judges the PDF). Only for PDF decks whose page count the parsed deck matches; not truncated here.
   */
  deckPdf?: Uint8Array;
  /** The judge; `null` runs offline: checks decide their items, LLM items stay `not_judged`. */
  client: LlmClient | null;
  /** Recorded in the evaluation, e.g. `lexical` or `anthropic:claude-sonnet-4-5`. */
  judgeId: string;
  /** Calls per item until a verdict reads (PresentBench retries 5 times). */
  maxAttempts?: number;
  concurrency?: number;
  standIn?: StandInMode;
  /**
   * Which deck the slide-count item counts: `delivered` (default) fails a deck past the maximum;
   * `judged` counts the truncated deck, as PresentBench does (its `check_slide_count` runs on the
   * already-truncated file, so an over-long deck passes 1.1).
   */
  slideCountOn?: 'delivered' | 'judged';
  layoutOptions?: Partial<LayoutCheckOptions>;
  progress?: ProgressReporter;
}

interface PlannedItem {
  key: string;
  dimension: RubricDimension;
  item: RubricInstance['checklists']['fundamentals'][number];
}

/** Evaluates one deck against one instance: every item its own verdict, plus the layout checks. */
export async function evaluateDeck(options: EvaluateDeckOptions): Promise<RubricEvaluation> {
  const { instance, deck, client } = options;
  const maxAttempts = options.maxAttempts ?? 3;
  const standIn = options.standIn ?? 'beside';
  const progress = options.progress ?? silentProgress;
  if (maxAttempts < 1) throw new UsageError('maxAttempts must be at least 1');

  const judged = truncateDeck(deck, instance.slideRange.max);
  if (options.deckPdf && judged.slides.length < deck.slides.length) {
    throw new InputError(
      `${deck.slides.length} pages, more than the instruction's ${instance.slideRange.max}; the PDF cannot be attached untruncated (cutting PDF pages is not supported): evaluate without attaching it`,
      { file: deck.deck_path },
    );
  }
  const layoutOptions: LayoutCheckOptions = {
    ...DEFAULT_LAYOUT_CHECK_OPTIONS,
    slideRange: instance.slideRange,
    language: instance.language,
    requireSourceAttribution: instance.requireSourceAttribution,
    ...options.layoutOptions,
  };
  // Everything but the slide count is checked on what the judge sees.
  const counted = options.slideCountOn === 'judged' ? judged : deck;
  const layoutChecks = runLayoutChecks(judged, layoutOptions).map((check) =>
    check.id === 'slide_count' ? checkSlideCount(counted, layoutOptions.slideRange) : check,
  );

  const planned = planItems(instance, judged.slides.length);
  const deckText = renderDeckForJudge(judged);
  const materialTexts = options.materials.map((material, index) =>
    renderMaterialForJudge(material, index + 2),
  );
  const sharedBySection = {
    material_independent: buildSharedPrefix(
      deckText,
      [],
      instance.prefixes.materialIndependent,
      options.deckPdf,
    ),
    material_dependent: buildSharedPrefix(
      deckText,
      materialTexts,
      instance.prefixes.materialDependent,
      options.deckPdf,
    ),
  };

  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let calls = 0;
  const results: RubricItemResult[] = new Array(planned.length);

  const decide = async (index: number): Promise<void> => {
    const { key, dimension, item } = planned[index] as PlannedItem;
    const { section, classId } = DIMENSION_CLASSES[dimension];
    const base = { key, section, class_id: classId, dimension } as const;
    if (typeof item !== 'string') {
      const check = runCheckItem(item.check, item.params, counted, judged, layoutOptions);
      results[index] = {
        ...base,
        kind: 'check',
        verdict: check.passed === null ? 'error' : check.passed ? 'yes' : 'no',
        raw_answer: check.passed === null ? null : check.passed ? 'yes' : 'no',
        explanation: `[judged by code] ${check.detail}`,
        cited_slides: check.slides,
        attempts: 0,
        check_id: item.check,
      };
      return;
    }
    const match = standIn === 'off' ? undefined : standInCheckFor(item);
    const layoutCheck = match ? layoutChecks.find((check) => check.id === match.check) : undefined;
    const besides = layoutCheck ? { layout_check: layoutCheck } : {};
    if (layoutCheck && match?.coversItem && standIn === 'replace' && layoutCheck.passed !== null) {
      results[index] = {
        ...base,
        kind: 'llm',
        verdict: layoutCheck.passed ? 'yes' : 'no',
        raw_answer: null,
        explanation: `[judged by code] ${layoutCheck.detail}`,
        cited_slides: layoutCheck.slides,
        attempts: 0,
        ...besides,
        decided_by_check: true,
      };
      return;
    }
    if (!client) {
      results[index] = {
        ...base,
        kind: 'llm',
        verdict: 'not_judged',
        raw_answer: null,
        explanation: null,
        cited_slides: [],
        attempts: 0,
        ...besides,
      };
      return;
    }
    const request = buildChecklistRequest(sharedBySection[section], item);
    const judgement = await judgeChecklistItem(client, request, maxAttempts);
    calls += judgement.attempts;
    usage = addUsage(usage, judgement.usage);
    results[index] = {
      ...base,
      kind: 'llm',
      verdict: judgement.answer ?? 'error',
      raw_answer: judgement.raw,
      explanation: judgement.failure
        ? `${judgement.failure}${judgement.explanation ? `\n${judgement.explanation}` : ''}`
        : judgement.explanation,
      cited_slides: judgement.explanation ? citedSlides(judgement.explanation, judged.slides.length) : [],
      attempts: judgement.attempts,
      ...besides,
    };
  };

  progress.start(`rubric ${instance.id}`, planned.length);
  // The first LLM item of each tier runs alone so its answer writes the prefix cache the rest read.
  const firstOfTier = new Set<number>();
  for (const section of ['material_independent', 'material_dependent'] as const) {
    const first = planned.findIndex(
      (entry) => typeof entry.item === 'string' && DIMENSION_CLASSES[entry.dimension].section === section,
    );
    if (first >= 0) firstOfTier.add(first);
  }
  for (const index of firstOfTier) {
    await decide(index);
    progress.tick();
  }
  const rest = planned.map((_, index) => index).filter((index) => !firstOfTier.has(index));
  await mapWithConcurrency(rest, options.concurrency ?? 4, async (index) => {
    await decide(index);
    progress.tick();
  });
  progress.finish();

  const usageRecord: RubricUsage = {
    calls,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
  };
  return {
    instance_id: instance.id,
    category: instance.category,
    deck_path: deck.deck_path,
    judge: options.judgeId,
    input_hash: evaluationInputHash(options),
    slide_count: deck.slides.length,
    judged_slide_count: judged.slides.length,
    truncated: judged.slides.length < deck.slides.length,
    items: results,
    layout_checks: layoutChecks,
    usage: usageRecord,
  };
}

/**
 * Share of all input tokens the provider served from its prompt cache: cache reads over
 * (uncached input + cache reads + cache writes). The calls of one deck share the deck (and material)
 * prefix, so this is the saving over PresentBench's evaluator, which resends the files with every item.
 */
export function cachedInputShare(usage: RubricUsage): number | null {
  const total = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
  return total > 0 ? usage.cache_read_tokens / total : null;
}

/** Items in PresentBench order; the per-slide fidelity list is cut to the judged slide count. */
function planItems(instance: RubricInstance, judgedSlides: number): PlannedItem[] {
  const planned: PlannedItem[] = [];
  for (const dimension of RUBRIC_DIMENSIONS) {
    const items =
      dimension === 'fidelity'
        ? instance.checklists.fidelity.slice(0, judgedSlides)
        : instance.checklists[dimension];
    const { classId } = DIMENSION_CLASSES[dimension];
    items.forEach((item, index) => {
      planned.push({ key: `${classId}.${index + 1}`, dimension, item });
    });
  }
  return planned;
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

/** What an evaluation depends on; equal hashes mean a re-run would ask the same questions of the same deck. */
export function evaluationInputHash(options: EvaluateDeckOptions): string {
  const { origin: _origin, materials: _paths, ...instance } = options.instance;
  return hashCanonicalJson({
    instance,
    slides: options.deck.slides.map((slide) => [slide.visible_text, slide.elements]),
    size: [options.deck.slide_width, options.deck.slide_height],
    materials: options.materials,
    deckPdf: options.deckPdf ? hashBytes(options.deckPdf) : null,
    judge: options.judgeId,
    maxAttempts: options.maxAttempts ?? 3,
    standIn: options.standIn ?? 'beside',
    slideCountOn: options.slideCountOn ?? 'delivered',
    layout: options.layoutOptions ?? {},
  });
}
