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
  type RubricParser,
  type RubricSlideCountBase,
  type RubricUsage,
  silentProgress,
  UsageError,
} from '@xsb/core';
import { truncateDeck } from '@xsb/decks';
import type { CompletionRequest, ContentPart, LlmClient, TokenUsage } from '@xsb/llm';
import { DEFAULT_PARSER, defaultMaxAttempts } from './boxed-verdict';
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
  /**
   * How answers are read: `strict` (default) as PresentBench main's judge.py, `lenient` as xsb's
   * older reader (see `readStrictVerdict` / `readLenientVerdict`).
   */
  parser?: RubricParser;
  /** Calls per item until an answer reads (default 5 for strict, PresentBench's `--retry`; 3 for lenient). */
  maxAttempts?: number;
  /** Items judged at once (default 4). */
  concurrency?: number;
  /**
   * Judge the first LLM item of each tier alone before the others (default true), so its answer
   * writes the provider's prompt cache the rest read. Pointless through a batch API (a batch is
   * processed in any order, and the lone call would be a batch of its own): `--batch` turns it off.
   * The verdicts are the same either way.
   */
  warmPrefixCache?: boolean;
  standIn?: StandInMode;
  /**
   * Which deck the slide-count item counts: `judged` (default) the truncated deck, as PresentBench
   * does (its `check_slide_count` runs on the already-truncated file, so an over-long deck passes
   * 1.1); `delivered` the deck as delivered, so an over-long deck fails it.
   */
  slideCountOn?: RubricSlideCountBase;
  layoutOptions?: Partial<LayoutCheckOptions>;
  /** Started, ticked once per checklist item and finished by this call. */
  progress?: ProgressReporter;
  /** Called once per checklist item as it is decided (a caller's own progress over many decks). */
  onItemDone?: (item: RubricItemResult) => void;
  /**
   * A stored evaluation with the same input hash: its answered items are kept and only its
   * unanswered (`error`) items are judged again — PresentBench's resume rule.
   */
  resumeFrom?: RubricEvaluation;
}

interface PlannedItem {
  key: string;
  dimension: RubricDimension;
  item: RubricInstance['checklists']['fundamentals'][number];
}

/** Everything an evaluation decides before the first call: the judged deck, checks, items, prefixes. */
interface PreparedDeckEvaluation {
  judged: Deck;
  /** The deck the slide-count item counts (see `slideCountOn`). */
  counted: Deck;
  layoutOptions: LayoutCheckOptions;
  layoutChecks: LayoutCheckResult[];
  planned: PlannedItem[];
  resumed: Map<string, RubricItemResult>;
  sharedBySection: Record<'material_independent' | 'material_dependent', ContentPart[]>;
  parser: RubricParser;
  maxAttempts: number;
  standIn: StandInMode;
  slideCountOn: RubricSlideCountBase;
}

function prepareDeckEvaluation(options: EvaluateDeckOptions): PreparedDeckEvaluation {
  const { instance, deck } = options;
  const parser = options.parser ?? DEFAULT_PARSER;
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts(parser);
  const standIn = options.standIn ?? 'beside';
  const slideCountOn = options.slideCountOn ?? 'judged';
  if (maxAttempts < 1) throw new UsageError('maxAttempts must be at least 1');

  const judged = instance.truncateTo === null ? deck : truncateDeck(deck, instance.truncateTo);
  if (options.deckPdf && judged.slides.length < deck.slides.length) {
    throw new InputError(
      `${deck.slides.length} pages, more than the instruction's ${judged.slides.length}; the PDF cannot be attached untruncated (cutting PDF pages is not supported): evaluate without attaching it`,
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
  const counted = slideCountOn === 'judged' ? judged : deck;
  const layoutChecks = runLayoutChecks(judged, layoutOptions).map((check) =>
    check.id === 'slide_count' ? checkSlideCount(counted, layoutOptions.slideRange) : check,
  );
  const deckText = renderDeckForJudge(judged);
  const materialTexts = options.materials.map((material, index) =>
    renderMaterialForJudge(material, index + 2),
  );
  return {
    judged,
    counted,
    layoutOptions,
    layoutChecks,
    planned: planItems(instance, deck.slides.length),
    resumed: resumableItems(options.resumeFrom),
    sharedBySection: {
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
    },
    parser,
    maxAttempts,
    standIn,
    slideCountOn,
  };
}

/** How one item will be decided: kept from a resumed evaluation, by code, or by a judge call. */
type ItemDecision =
  | { kind: 'kept'; result: RubricItemResult }
  | { kind: 'check'; item: Exclude<PlannedItem['item'], string> }
  | { kind: 'replaced'; layoutCheck: LayoutCheckResult }
  | { kind: 'offline'; layoutCheck: LayoutCheckResult | undefined }
  | { kind: 'llm'; request: CompletionRequest; layoutCheck: LayoutCheckResult | undefined };

function decideHow(prepared: PreparedDeckEvaluation, index: number, hasClient: boolean): ItemDecision {
  const { key, dimension, item } = prepared.planned[index] as PlannedItem;
  const { section } = DIMENSION_CLASSES[dimension];
  const kept = prepared.resumed.get(`${section}:${key}`);
  if (kept) return { kind: 'kept', result: kept };
  if (typeof item !== 'string') return { kind: 'check', item };
  const match = prepared.standIn === 'off' ? undefined : standInCheckFor(item);
  const layoutCheck = match ? prepared.layoutChecks.find((check) => check.id === match.check) : undefined;
  if (layoutCheck && match?.coversItem && prepared.standIn === 'replace' && layoutCheck.passed !== null)
    return { kind: 'replaced', layoutCheck };
  if (!hasClient) return { kind: 'offline', layoutCheck };
  return {
    kind: 'llm',
    request: buildChecklistRequest(prepared.sharedBySection[section], item),
    layoutCheck,
  };
}

/**
 * Item indexes in the order they are sent: the first LLM item of each tier alone first (so its
 * answer writes the prefix cache the rest read; not under a batch, which answers in any order), then
 * the others.
 */
function sendingOrder(
  planned: readonly PlannedItem[],
  warmPrefixCache: boolean,
): { first: number[]; rest: number[] } {
  const first: number[] = [];
  for (const section of warmPrefixCache ? (['material_independent', 'material_dependent'] as const) : []) {
    const index = planned.findIndex(
      (entry) => typeof entry.item === 'string' && DIMENSION_CLASSES[entry.dimension].section === section,
    );
    if (index >= 0) first.push(index);
  }
  const rest = planned.map((_, index) => index).filter((index) => !first.includes(index));
  return { first, rest };
}

/**
 * The judge requests an evaluation of these options sends at the first attempt of each item, in
 * sending order (items decided by code, kept from `resumeFrom`, or offline send none): what a cost
 * plan prices. Repeats of an item whose answer does not read are not included.
 */
export function checklistRequests(
  options: EvaluateDeckOptions,
): Array<{ key: string; section: string; request: CompletionRequest }> {
  const prepared = prepareDeckEvaluation(options);
  const { first, rest } = sendingOrder(prepared.planned, options.warmPrefixCache !== false);
  const out: Array<{ key: string; section: string; request: CompletionRequest }> = [];
  for (const index of [...first, ...rest]) {
    const decision = decideHow(prepared, index, options.client !== null);
    if (decision.kind !== 'llm') continue;
    const { key, dimension } = prepared.planned[index] as PlannedItem;
    out.push({ key, section: DIMENSION_CLASSES[dimension].section, request: decision.request });
  }
  return out;
}

/** Evaluates one deck against one instance: every item its own verdict, plus the layout checks. */
export async function evaluateDeck(options: EvaluateDeckOptions): Promise<RubricEvaluation> {
  const { instance, deck, client } = options;
  const progress = options.progress ?? silentProgress;
  const prepared = prepareDeckEvaluation(options);
  const { judged, counted, layoutOptions, layoutChecks, planned, parser, maxAttempts, slideCountOn } =
    prepared;

  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let calls = 0;
  const results: RubricItemResult[] = new Array(planned.length);

  const decide = async (index: number): Promise<void> => {
    const { key, dimension } = planned[index] as PlannedItem;
    const { section, classId } = DIMENSION_CLASSES[dimension];
    const base = { key, section, class_id: classId, dimension } as const;
    const decision = decideHow(prepared, index, client !== null);
    const besides =
      'layoutCheck' in decision && decision.layoutCheck ? { layout_check: decision.layoutCheck } : {};
    switch (decision.kind) {
      case 'kept':
        results[index] = decision.result;
        return;
      case 'check':
        results[index] = { ...base, ...checkItemResult(decision.item, counted, judged, layoutOptions) };
        return;
      case 'replaced': {
        const { layoutCheck } = decision;
        results[index] = {
          ...base,
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
        return;
      }
      case 'offline':
        results[index] = {
          ...base,
          kind: 'llm',
          verdict: 'not_judged',
          raw_answer: null,
          answer: null,
          explanation: null,
          cited_slides: [],
          attempts: 0,
          ...besides,
        };
        return;
      case 'llm':
        break;
    }
    // `llm` is decided only when there is a client.
    const judgement = await judgeChecklistItem(client as LlmClient, decision.request, {
      parser,
      maxAttempts,
      key,
      deckPath: deck.deck_path,
    });
    calls += judgement.attempts;
    usage = addUsage(usage, judgement.usage);
    results[index] = {
      ...base,
      kind: 'llm',
      verdict: judgement.verdict ?? 'error',
      raw_answer: judgement.raw,
      answer: judgement.answer,
      explanation: judgement.explanation,
      cited_slides: judgement.explanation ? citedSlides(judgement.explanation, judged.slides.length) : [],
      attempts: judgement.attempts,
      ...(judgement.log ? { log: judgement.log } : {}),
      ...besides,
    };
  };

  const tick = (index: number): void => {
    progress.tick();
    options.onItemDone?.(results[index] as RubricItemResult);
  };
  progress.start(`rubric ${instance.id} (checklist items)`, planned.length);
  // The first LLM item of each tier runs alone so its answer writes the prefix cache the rest read.
  const { first, rest } = sendingOrder(planned, options.warmPrefixCache !== false);
  for (const index of first) {
    await decide(index);
    tick(index);
  }
  await mapWithConcurrency(rest, options.concurrency ?? 4, async (index) => {
    await decide(index);
    tick(index);
  });
  progress.finish();

  // A resumed evaluation's usage covers every call made for it, the earlier ones included.
  const before = options.resumeFrom?.usage;
  const usageRecord: RubricUsage = {
    calls: calls + (before?.calls ?? 0),
    input_tokens: usage.inputTokens + (before?.input_tokens ?? 0),
    output_tokens: usage.outputTokens + (before?.output_tokens ?? 0),
    cache_read_tokens: usage.cacheReadTokens + (before?.cache_read_tokens ?? 0),
    cache_write_tokens: usage.cacheWriteTokens + (before?.cache_write_tokens ?? 0),
  };
  return {
    instance_id: instance.id,
    category: instance.category,
    deck_path: deck.deck_path,
    judge: options.judgeId,
    parser,
    slide_count_on: slideCountOn,
    weights: instance.weights,
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

/** How many checklist items a deck of `deckSlides` slides gets (the fidelity list is cut to it). */
export function countPlannedItems(instance: RubricInstance, deckSlides: number): number {
  return planItems(instance, deckSlides).length;
}

/**
 * Items in PresentBench order. The per-slide fidelity list is cut to the deck's page count before
 * truncation, as `generate_checklist` does (`checklist_3[:count_pages(slides)]` on the original file).
 */
function planItems(instance: RubricInstance, deckSlides: number): PlannedItem[] {
  const planned: PlannedItem[] = [];
  for (const dimension of RUBRIC_DIMENSIONS) {
    const items =
      dimension === 'fidelity'
        ? instance.checklists.fidelity.slice(0, deckSlides)
        : instance.checklists[dimension];
    const { classId } = DIMENSION_CLASSES[dimension];
    items.forEach((item, index) => {
      planned.push({ key: `${classId}.${index + 1}`, dimension, item });
    });
  }
  return planned;
}

/** Items of a stored evaluation to keep when resuming: every one that has an answer or a decision. */
function resumableItems(previous: RubricEvaluation | undefined): Map<string, RubricItemResult> {
  const kept = new Map<string, RubricItemResult>();
  for (const item of previous?.items ?? []) {
    if (item.verdict !== 'error') kept.set(`${item.section}:${item.key}`, item);
  }
  return kept;
}

/**
 * A deterministic item. The slide count reads as PresentBench's `check_slide_count` writes it
 * (answer, and explanation word for word); an undecidable check is unanswered, as judge.py stores a
 * callable that raised (`answer: null`, `log: "Error: …"`).
 */
function checkItemResult(
  item: Exclude<RubricInstance['checklists']['fundamentals'][number], string>,
  counted: Deck,
  judged: Deck,
  options: LayoutCheckOptions,
): Omit<RubricItemResult, 'key' | 'section' | 'class_id' | 'dimension'> {
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
    parser: options.parser ?? DEFAULT_PARSER,
    maxAttempts: options.maxAttempts ?? defaultMaxAttempts(options.parser ?? DEFAULT_PARSER),
    standIn: options.standIn ?? 'beside',
    slideCountOn: options.slideCountOn ?? 'judged',
    layout: options.layoutOptions ?? {},
  });
}
