import { readFile } from 'node:fs/promises';
import { isXsbError } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { isOfflineJudge, type LlmClient } from '@xsb/llm';
import {
  checklistRequests,
  type EvaluateDeckOptions,
  evaluationFilesFor,
  findInstances,
  findPresentBenchDeck,
  matchingStoredEvaluation,
  type RubricInstance,
  readMaterials,
} from '@xsb/rubric';
import type { CostPlanBuilder } from './cost-plan-builder';
import { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';
import { planningClient } from './plan-weights';

export const RUBRIC_ITEM_STAGE = 'rubric.item';

/** The options of `runRubric` (`xsb rubric run`) that decide which calls it makes. */
export interface PlanRubricOptions
  extends Pick<EvaluateDeckOptions, 'parser' | 'maxAttempts' | 'standIn' | 'slideCountOn' | 'layoutOptions'> {
  instancesDir: string;
  resultsDir: string;
  force?: boolean;
  attachPdf?: boolean;
  /** Only the instances this keeps (e.g. a `--shard`), by their path under the instances folder. */
  include?: (relativePath: string) => boolean;
}

/**
 * The checklist calls of `xsb rubric run`: for every instance with a deck, the evaluation beside it
 * is reused when its input hash matches (resumed: only unanswered items are asked again), otherwise
 * every LLM item is one call of `buildSharedPrefix` + `buildChecklistRequest`, in the order
 * `evaluateDeck` sends them (the first item of each tier alone, so it writes the prefix cache the
 * rest read). Items decided by code, or replaced by a layout check, make no call. Exact: the first
 * attempt of each item (an answer without a `\boxed{}` verdict is asked again; those repeats are not
 * planned). Instances are read one at a time, so the plan's memory does not grow with their number.
 */
export async function planRubric(
  builder: CostPlanBuilder,
  options: PlanRubricOptions,
): Promise<{ instances: number; failures: string[] }> {
  const judgeId = builder.context.judge;
  const client = isOfflineJudge(judgeId) ? null : planningClient(judgeId);
  const failures: string[] = [];
  builder.stage(RUBRIC_ITEM_STAGE);
  const entries = (await findInstances(options.instancesDir)).filter(
    (entry) => options.include?.(entry.relativePath) ?? true,
  );
  if (!client)
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
      await planRubricDeck(builder, { ...options, instance, deckPath }, client);
    } catch (error) {
      if (!isXsbError(error) || error.kind !== 'input') throw error;
      failures.push(`${entry.relativePath}: ${error.message}`);
    }
  }
  for (const failure of failures) builder.note(`rubric: ${failure} (the row fails, no call)`);
  return { instances: entries.length, failures };
}

/**
 * One deck against one instance (`xsb rubric eval`, and each deck of `planRubric`): the checklist
 * calls `evaluateOrReuse` would make, or the reuse of a current stored evaluation.
 */
export async function planRubricDeck(
  builder: CostPlanBuilder,
  options: Omit<PlanRubricOptions, 'instancesDir' | 'resultsDir' | 'include'> & {
    instance: RubricInstance;
    deckPath: string;
  },
  client: LlmClient | null = isOfflineJudge(builder.context.judge)
    ? null
    : planningClient(builder.context.judge),
): Promise<void> {
  const judgeId = builder.context.judge;
  const { instance, deckPath } = options;
  builder.stage(RUBRIC_ITEM_STAGE);
  const deck = await readDeck(deckPath);
  const evaluateOptions: EvaluateDeckOptions = {
    instance,
    deck,
    materials: await readMaterials(instance.materials),
    ...(options.attachPdf && deck.format === 'pdf'
      ? { deckPdf: new Uint8Array(await readFile(deckPath)) }
      : {}),
    client,
    judgeId,
    ...(options.parser ? { parser: options.parser } : {}),
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.standIn ? { standIn: options.standIn } : {}),
    ...(options.slideCountOn ? { slideCountOn: options.slideCountOn } : {}),
    ...(options.layoutOptions ? { layoutOptions: options.layoutOptions } : {}),
  };
  const previous = await matchingStoredEvaluation(
    evaluateOptions,
    evaluationFilesFor(deckPath, judgeId),
    options.force,
  );
  const unanswered = previous?.items.some((item) => item.verdict === 'error') ?? false;
  if (previous && (!unanswered || !client)) {
    builder.reuse(RUBRIC_ITEM_STAGE, previous.items.filter((item) => item.attempts > 0).length);
    return;
  }
  const requests = checklistRequests(
    previous ? { ...evaluateOptions, resumeFrom: previous } : evaluateOptions,
  );
  if (previous)
    builder.reuse(
      RUBRIC_ITEM_STAGE,
      previous.items.filter((item) => item.verdict !== 'error' && item.attempts > 0).length,
    );
  for (const { request } of requests)
    await builder.add({
      stage: RUBRIC_ITEM_STAGE,
      request,
      outputTokens: cappedOutput(OUTPUT_TOKEN_ESTIMATES.rubricItem, request.maxTokens),
    });
}
