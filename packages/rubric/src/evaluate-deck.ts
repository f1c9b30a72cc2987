import {
  type Deck,
  executeWorkList,
  type ProgressReporter,
  type StageEvent,
  type StageEventListener,
  silentProgress,
  type UnitContext,
} from '@xsb/core';
import type { Judge, TokenUsage } from '@xsb/llm';
import { addUsage, judgeChecklistItem, type MaterialText } from './checklist-item-judge';
import type { LayoutCheckOptions } from './layout-checks';
import { DIMENSION_CLASSES, type RubricInstance } from './rubric-instance';
import {
  checkItemResult,
  judgedItemResult,
  offlineItemResult,
  replacedItemResult,
} from './rubric-item-results';
import {
  evaluationInputHash,
  type PreparedDeckEvaluation,
  planItems,
  prepareDeckEvaluation,
  type RubricItemUnit,
  rubricItemWorkList,
} from './rubric-item-work-list';
import type {
  RubricEvaluation,
  RubricItemResult,
  RubricParser,
  RubricSlideCountBase,
  RubricUsage,
} from './schemas/rubric-evaluation';

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
  /**
   * The judge (`createJudge`, `judgeFromClient`, `offlineJudge`); its id is recorded in the
   * evaluation. The offline judge decides check items only: LLM items stay `not_judged`.
   */
  judge: Judge;
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
  /** The stage's events (`rubric.item`: started, each item done, each judged item's usage, finished). */
  onEvent?: StageEventListener;
  /**
   * A stored evaluation with the same input hash: its answered items are kept and only its
   * unanswered (`error`) items are judged again — PresentBench's resume rule.
   */
  resumeFrom?: RubricEvaluation;
}

/** What an evaluation's judge calls spent, summed as they come. */
interface CallTally {
  calls: number;
  usage: TokenUsage;
}

/** Decides one item of the work list: keeps it, applies its rule, or asks the judge. */
async function decideUnit(
  unit: RubricItemUnit,
  options: EvaluateDeckOptions,
  prepared: PreparedDeckEvaluation,
  tally: CallTally,
  context: UnitContext,
): Promise<RubricItemResult> {
  const { key, dimension, item } = unit.input;
  const { section, classId } = DIMENSION_CLASSES[dimension];
  const base = { key, section, class_id: classId, dimension } as const;
  switch (item.kind) {
    case 'kept':
      return item.result;
    case 'check':
      return {
        ...base,
        ...checkItemResult(item.item, prepared.counted, prepared.judged, prepared.layoutOptions),
      };
    case 'replaced':
      return { ...base, ...replacedItemResult(item.layoutCheck) };
    case 'offline':
      return { ...base, ...offlineItemResult(item.layoutCheck) };
    case 'llm': {
      // The work list decides `llm` only for a judge with a client.
      const judgement = await judgeChecklistItem(options.judge.client!, item.request, {
        parser: prepared.parser,
        maxAttempts: prepared.maxAttempts,
        key,
        deckPath: options.deck.deck_path,
      });
      tally.calls += judgement.attempts;
      tally.usage = addUsage(tally.usage, judgement.usage);
      context.callMade(judgement.usage);
      return { ...base, ...judgedItemResult(judgement, prepared.judged.slides.length, item.layoutCheck) };
    }
  }
}

/**
 * The cache warm-up as an order on the list: the units that warm a tier's prefix run one after
 * another, and every other unit starts once they are done (their answers wrote the cache). Units
 * reach the gate in list order, the warming ones first.
 */
function warmUpGate() {
  let warmed: Promise<unknown> = Promise.resolve();
  return <T>(unit: RubricItemUnit, decide: () => Promise<T>): Promise<T> => {
    const result = warmed.then(decide);
    if (unit.input.warmsCache) warmed = result;
    return result;
  };
}

/** The progress line of one deck, drawn from the stage's events as before (one tick per item). */
function progressEvents(label: string, progress: ProgressReporter, onEvent?: StageEventListener) {
  return (event: StageEvent): void => {
    if (event.type === 'stage-started') progress.start(label, event.total);
    else if (event.type === 'unit-done') progress.tick();
    else if (event.type === 'stage-finished') progress.finish();
    onEvent?.(event);
  };
}

/** The usage record: a resumed evaluation's covers every call made for it, the earlier ones included. */
function usageRecord(tally: CallTally, before: RubricUsage | undefined): RubricUsage {
  return {
    calls: tally.calls + (before?.calls ?? 0),
    input_tokens: tally.usage.inputTokens + (before?.input_tokens ?? 0),
    output_tokens: tally.usage.outputTokens + (before?.output_tokens ?? 0),
    cache_read_tokens: tally.usage.cacheReadTokens + (before?.cache_read_tokens ?? 0),
    cache_write_tokens: tally.usage.cacheWriteTokens + (before?.cache_write_tokens ?? 0),
  };
}

/** Evaluates one deck against one instance: every item its own verdict, plus the layout checks. */
export async function evaluateDeck(options: EvaluateDeckOptions): Promise<RubricEvaluation> {
  const { instance, deck } = options;
  const prepared = prepareDeckEvaluation(options);
  const units = rubricItemWorkList(options, prepared);
  const tally: CallTally = {
    calls: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
  const results: RubricItemResult[] = new Array(units.length);
  const gate = warmUpGate();
  await executeWorkList(units, {
    concurrency: options.concurrency ?? 4,
    unitName: 'checklist items',
    onEvent: progressEvents(
      `rubric ${instance.id} (checklist items)`,
      options.progress ?? silentProgress,
      options.onEvent,
    ),
    // Any error ends the evaluation, as before the work list: a provider failure that survives the
    // client's retries is already an unanswered item, so what reaches here is not one item's.
    stopsStage: () => true,
    run: async (unit, context) => {
      const result = await gate(unit, () => decideUnit(unit, options, prepared, tally, context));
      results[unit.input.index] = result;
      options.onItemDone?.(result);
      return result;
    },
  });
  const { judged } = prepared;
  return {
    instance_id: instance.id,
    category: instance.category,
    deck_path: deck.deck_path,
    judge: options.judge.id,
    parser: prepared.parser,
    slide_count_on: prepared.slideCountOn,
    weights: instance.weights,
    input_hash: evaluationInputHash(options),
    slide_count: deck.slides.length,
    judged_slide_count: judged.slides.length,
    truncated: judged.slides.length < deck.slides.length,
    items: results,
    layout_checks: prepared.layoutChecks,
    usage: usageRecord(tally, options.resumeFrom?.usage),
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
