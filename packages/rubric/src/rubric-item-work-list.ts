/**
 * The checklist items of one deck as a work list (docs/architecture.md): each item is reused from a
 * resumed evaluation, decided by a rule (a check item, a layout check that replaces it, the offline
 * judge), or by one judge call whose request is listed. `evaluateDeck` runs these units and `xsb plan`
 * (`planRubricDeck`) prices the same ones, so the two cannot disagree on a call.
 */
import {
  type Deck,
  hashBytes,
  hashCanonicalJson,
  InputError,
  UsageError,
  type WorkDecision,
  type WorkUnit,
} from '@xsb/core';
import { truncateDeck } from '@xsb/decks';
import type { CompletionRequest, ContentPart, JudgeDescription } from '@xsb/llm';
import { DEFAULT_PARSER, defaultMaxAttempts } from './boxed-verdict';
import {
  buildChecklistRequest,
  buildSharedPrefix,
  renderDeckForJudge,
  renderMaterialForJudge,
} from './checklist-item-judge';
import type { EvaluateDeckOptions, StandInMode } from './evaluate-deck';
import type {
  LayoutCheckResult,
  RubricItemResult,
  RubricParser,
  RubricSlideCountBase,
} from './schemas/rubric-evaluation';
import { RUBRIC_DIMENSIONS, type RubricDimension } from './schemas/rubric-instance';

/** The options that decide an evaluation's items; the judge only as a description (what a plan has). */
export type RubricItemListOptions = Omit<
  EvaluateDeckOptions,
  'judge' | 'progress' | 'onItemDone' | 'onEvent' | 'concurrency'
> & { judge: Pick<JudgeDescription, 'id' | 'kind'> };

import {
  checkSlideCount,
  DEFAULT_LAYOUT_CHECK_OPTIONS,
  type LayoutCheckOptions,
  runLayoutChecks,
} from './layout-checks';
import { DIMENSION_CLASSES, type RubricInstance } from './rubric-instance';
import { standInCheckFor } from './stand-in-checks';

/** The stage id of checklist items, as in plans, ledgers and events. */
export const RUBRIC_ITEM_STAGE = 'rubric.item';

/** Typical answer tokens of one item: PresentBench's judges reason a paragraph, then `\boxed{yes|no}`. */
export const RUBRIC_ITEM_OUTPUT_TOKENS = 300;

type ChecklistItem = RubricInstance['checklists']['fundamentals'][number];
type Section = 'material_independent' | 'material_dependent';

interface PlannedItem {
  key: string;
  dimension: RubricDimension;
  item: ChecklistItem;
}

/** How one item is decided: kept from a resumed evaluation, by code, offline, or by a judge call. */
export type ItemDecision =
  | { kind: 'kept'; result: RubricItemResult }
  | { kind: 'check'; item: Exclude<ChecklistItem, string> }
  | { kind: 'replaced'; layoutCheck: LayoutCheckResult }
  | { kind: 'offline'; layoutCheck: LayoutCheckResult | undefined }
  | { kind: 'llm'; request: CompletionRequest; layoutCheck: LayoutCheckResult | undefined };

export interface RubricItemInput {
  /** Position in PresentBench order (the evaluation's `items`). */
  index: number;
  key: string;
  dimension: RubricDimension;
  /** Sent alone before the other items, so its answer writes the prefix cache they read. */
  warmsCache: boolean;
  item: ItemDecision;
}

export type RubricItemUnit = WorkUnit<CompletionRequest, RubricItemInput>;

/** Everything an evaluation decides before the first call: the judged deck, checks, items, prefixes. */
export interface PreparedDeckEvaluation {
  judged: Deck;
  /** The deck the slide-count item counts (see `slideCountOn`). */
  counted: Deck;
  layoutOptions: LayoutCheckOptions;
  layoutChecks: LayoutCheckResult[];
  planned: PlannedItem[];
  resumed: Map<string, RubricItemResult>;
  sharedBySection: Record<Section, ContentPart[]>;
  parser: RubricParser;
  maxAttempts: number;
  standIn: StandInMode;
  slideCountOn: RubricSlideCountBase;
}

/** The settled options of an evaluation (defaults applied, `maxAttempts` checked). */
function settledOptions(options: RubricItemListOptions) {
  const parser = options.parser ?? DEFAULT_PARSER;
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts(parser);
  if (maxAttempts < 1) throw new UsageError('maxAttempts must be at least 1');
  return {
    parser,
    maxAttempts,
    standIn: options.standIn ?? 'beside',
    slideCountOn: options.slideCountOn ?? 'judged',
  } as const;
}

/** The deck the judge sees: cut to the instruction's maximum, refused when an attached PDF would then differ. */
function judgedDeck(options: RubricItemListOptions): Deck {
  const { instance, deck } = options;
  const judged = instance.truncateTo === null ? deck : truncateDeck(deck, instance.truncateTo);
  if (options.deckPdf && judged.slides.length < deck.slides.length) {
    throw new InputError(
      `${deck.slides.length} pages, more than the instruction's ${judged.slides.length}; the PDF cannot be attached untruncated (cutting PDF pages is not supported): evaluate without attaching it`,
      { file: deck.deck_path },
    );
  }
  return judged;
}

/** The shared prefix of each tier: deck (and materials for the dependent tier), then the tier's prefix. */
function sharedPrefixes(options: RubricItemListOptions, judged: Deck): Record<Section, ContentPart[]> {
  const { instance } = options;
  const deckText = renderDeckForJudge(judged);
  const materialTexts = options.materials.map((material, index) =>
    renderMaterialForJudge(material, index + 2),
  );
  return {
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
}

export function prepareDeckEvaluation(options: RubricItemListOptions): PreparedDeckEvaluation {
  const { instance, deck } = options;
  const settled = settledOptions(options);
  const judged = judgedDeck(options);
  const layoutOptions: LayoutCheckOptions = {
    ...DEFAULT_LAYOUT_CHECK_OPTIONS,
    slideRange: instance.slideRange,
    language: instance.language,
    requireSourceAttribution: instance.requireSourceAttribution,
    ...options.layoutOptions,
  };
  // Everything but the slide count is checked on what the judge sees.
  const counted = settled.slideCountOn === 'judged' ? judged : deck;
  const layoutChecks = runLayoutChecks(judged, layoutOptions).map((check) =>
    check.id === 'slide_count' ? checkSlideCount(counted, layoutOptions.slideRange) : check,
  );
  return {
    ...settled,
    judged,
    counted,
    layoutOptions,
    layoutChecks,
    planned: planItems(instance, deck.slides.length),
    resumed: resumableItems(options.resumeFrom),
    sharedBySection: sharedPrefixes(options, judged),
  };
}

/** How item `index` is decided for a judge of this kind. */
export function decideItem(
  prepared: PreparedDeckEvaluation,
  index: number,
  judge: Pick<JudgeDescription, 'kind'>,
): ItemDecision {
  const { key, dimension, item } = prepared.planned[index] as PlannedItem;
  const { section } = DIMENSION_CLASSES[dimension];
  const kept = prepared.resumed.get(`${section}:${key}`);
  if (kept) return { kind: 'kept', result: kept };
  if (typeof item !== 'string') return { kind: 'check', item };
  const match = prepared.standIn === 'off' ? undefined : standInCheckFor(item);
  const layoutCheck = match ? prepared.layoutChecks.find((check) => check.id === match.check) : undefined;
  if (layoutCheck && match?.coversItem && prepared.standIn === 'replace' && layoutCheck.passed !== null)
    return { kind: 'replaced', layoutCheck };
  if (judge.kind === 'offline') return { kind: 'offline', layoutCheck };
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
export function sendingOrder(
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

/** The work decision of an item decision: what a plan prices. */
export function workDecisionOf(item: ItemDecision, deckPath: string): WorkDecision<CompletionRequest> {
  switch (item.kind) {
    case 'kept':
      return { kind: 'reuse', artifact: `${deckPath} (stored evaluation)` };
    case 'check':
      return { kind: 'rule', rule: `check item ${item.item.check}` };
    case 'replaced':
      return { kind: 'rule', rule: `layout check ${item.layoutCheck.id} (replaces the item)` };
    case 'offline':
      return { kind: 'rule', rule: 'offline judge: not judged' };
    case 'llm': {
      const { maxTokens } = item.request;
      const outputTokens =
        maxTokens === undefined ? RUBRIC_ITEM_OUTPUT_TOKENS : Math.min(RUBRIC_ITEM_OUTPUT_TOKENS, maxTokens);
      return { kind: 'call', requests: [item.request], outputTokens };
    }
  }
}

/**
 * The items of one evaluation in sending order, each with its decision. Pure apart from the
 * evaluation's options (nothing read, nothing written): `evaluateDeck` runs it, the plan prices it.
 */
export function rubricItemWorkList(
  options: RubricItemListOptions,
  prepared: PreparedDeckEvaluation = prepareDeckEvaluation(options),
): RubricItemUnit[] {
  const { first, rest } = sendingOrder(prepared.planned, options.warmPrefixCache !== false);
  const deckPath = options.deck.deck_path;
  const reads = [deckPath, ...options.instance.materials];
  const reuseKey = evaluationInputHash(options);
  return [...first, ...rest].map((index) => {
    const { key, dimension } = prepared.planned[index] as PlannedItem;
    const item = decideItem(prepared, index, options.judge);
    return {
      stage: RUBRIC_ITEM_STAGE,
      id: `${deckPath}#${DIMENSION_CLASSES[dimension].section}:${key}`,
      reads,
      reuseKey,
      decision: workDecisionOf(item, deckPath),
      input: { index, key, dimension, warmsCache: first.includes(index), item },
    };
  });
}

/** What an evaluation depends on; equal hashes mean a re-run would ask the same questions of the same deck. */
export function evaluationInputHash(
  options: Omit<RubricItemListOptions, 'judge'> & { judge: Pick<JudgeDescription, 'id'> },
): string {
  const { origin: _origin, materials: _paths, ...instance } = options.instance;
  return hashCanonicalJson({
    instance,
    slides: options.deck.slides.map((slide) => [slide.visible_text, slide.elements]),
    size: [options.deck.slide_width, options.deck.slide_height],
    materials: options.materials,
    deckPdf: options.deckPdf ? hashBytes(options.deckPdf) : null,
    judge: options.judge.id,
    parser: options.parser ?? DEFAULT_PARSER,
    maxAttempts: options.maxAttempts ?? defaultMaxAttempts(options.parser ?? DEFAULT_PARSER),
    standIn: options.standIn ?? 'beside',
    slideCountOn: options.slideCountOn ?? 'judged',
    layout: options.layoutOptions ?? {},
  });
}

/**
 * Items in PresentBench order. The per-slide fidelity list is cut to the deck's page count before
 * truncation, as `generate_checklist` does (`checklist_3[:count_pages(slides)]` on the original file).
 */
export function planItems(instance: RubricInstance, deckSlides: number): PlannedItem[] {
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
function resumableItems(previous: { items: RubricItemResult[] } | undefined): Map<string, RubricItemResult> {
  const kept = new Map<string, RubricItemResult>();
  for (const item of previous?.items ?? []) {
    if (item.verdict !== 'error') kept.set(`${item.section}:${item.key}`, item);
  }
  return kept;
}
