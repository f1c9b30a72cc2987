import { isXsbError } from '@xsb/core';
import { describeJudge, type JudgeDescription } from '@xsb/llm';
import {
  deckItemWorkList,
  type EvaluateDeckOptions,
  findInstances,
  findPresentBenchDeck,
  RUBRIC_ITEM_STAGE,
  type RubricInstance,
} from '@xsb/rubric';
import type { CostPlanBuilder } from './cost-plan-builder';
import { priceUnit } from './plan-weights';

export { RUBRIC_ITEM_STAGE };

/** The options of `runRubric` (`xsb rubric run`) that decide which calls it makes. */
export interface PlanRubricOptions
  extends Pick<
    EvaluateDeckOptions,
    'parser' | 'maxAttempts' | 'standIn' | 'slideCountOn' | 'layoutOptions' | 'warmPrefixCache'
  > {
  instancesDir: string;
  resultsDir: string;
  force?: boolean;
  attachPdf?: boolean;
  /** Only the instances this keeps (e.g. a `--shard`), by their path under the instances folder. */
  include?: (relativePath: string) => boolean;
  /** What the judge is (default: `describeJudge` of the plan's judge spec). */
  judge?: JudgeDescription;
}

/**
 * The checklist calls of `xsb rubric run`: for every instance with a deck, the items of
 * `rubricItemWorkList`, the list `evaluateDeck` runs — an item kept from the stored evaluation beside
 * the deck (same input hash) is reused, one decided by code or the offline judge makes no call, every
 * other is its one request, in sending order. Exact: the first attempt of each item (an answer without
 * a `\boxed{}` verdict is asked again; those repeats are not planned). Instances are read one at a
 * time, so the plan's memory does not grow with their number.
 */
export async function planRubric(
  builder: CostPlanBuilder,
  options: PlanRubricOptions,
): Promise<{ instances: number; failures: string[] }> {
  const judge = options.judge ?? describeJudge(builder.context.judge);
  const failures: string[] = [];
  builder.stage(RUBRIC_ITEM_STAGE);
  const entries = (await findInstances(options.instancesDir)).filter(
    (entry) => options.include?.(entry.relativePath) ?? true,
  );
  if (judge.kind === 'offline')
    builder.note(
      'rubric with the lexical judge: checklist items are not judged (no calls); checks still run',
    );
  for (const entry of entries) {
    try {
      const instance = await entry.load();
      const deckPath = findPresentBenchDeck(options.resultsDir, entry.relativePath);
      if (!deckPath) {
        failures.push(`${entry.relativePath}: no slides.pdf or slides.pptx`);
        continue;
      }
      await planRubricDeck(builder, { ...options, instance, deckPath, judge });
    } catch (error) {
      if (!isXsbError(error) || error.kind !== 'input') throw error;
      failures.push(`${entry.relativePath}: ${error.message}`);
    }
  }
  for (const failure of failures) builder.note(`rubric: ${failure} (the row fails, no call)`);
  return { instances: entries.length, failures };
}

/**
 * One deck against one instance (`xsb rubric eval`, and each deck of `planRubric`): its work list
 * priced — a kept item a judge answered counts as a reused call, a call item as its request.
 */
export async function planRubricDeck(
  builder: CostPlanBuilder,
  options: Omit<PlanRubricOptions, 'instancesDir' | 'resultsDir' | 'include'> & {
    instance: RubricInstance;
    deckPath: string;
  },
): Promise<void> {
  const judge = options.judge ?? describeJudge(builder.context.judge);
  builder.stage(RUBRIC_ITEM_STAGE);
  for (const unit of await deckItemWorkList(options.instance, options.deckPath, { ...options, judge })) {
    const { item } = unit.input;
    await priceUnit(builder, unit, item.kind === 'kept' && item.result.attempts > 0 ? 1 : 0);
  }
}
