import { plural } from '@xsb/core';
import { DEFAULT_BATCH_SIZE, DEFAULT_CLAIM_SETTINGS, EVAL_OUTPUT_TOKENS, EVAL_STAGES } from '@xsb/eval';
import { readPendingPrompts, replayStoreKeys, requestFromPending } from '@xsb/llm';
import { RUBRIC_ITEM_OUTPUT_TOKENS, RUBRIC_ITEM_STAGE } from '@xsb/rubric';
import type { CostPlanBuilder } from './cost-plan-builder';

/** The stage of a pending prompt that recorded none (as `xsb llm fill` logs it). */
export const FILL_STAGE = 'llm.fill';

/** Answer tokens of a pending prompt by its stage: the line does not say its batch, so the stage default stands in. */
const FILL_OUTPUT_ESTIMATES: Record<string, number> = {
  [EVAL_STAGES.answerability]: EVAL_OUTPUT_TOKENS.answerabilityPerProbe * DEFAULT_BATCH_SIZE,
  [EVAL_STAGES.claimExtraction]: EVAL_OUTPUT_TOKENS.claimPerClaim * DEFAULT_CLAIM_SETTINGS.max_claims,
  [EVAL_STAGES.claimVerification]:
    EVAL_OUTPUT_TOKENS.verificationPerClaim * DEFAULT_CLAIM_SETTINGS.verify_batch_size,
  [RUBRIC_ITEM_STAGE]: RUBRIC_ITEM_OUTPUT_TOKENS,
};
const UNKNOWN_STAGE_OUTPUT = 500;

export interface PlanFillResult {
  /** Distinct pending prompts. */
  pending: number;
  /** Of them, already answered by the store (not sent). */
  alreadyStored: number;
  /** Of them, lines `xsb llm fill` cannot send (images or documents kept by hash only). */
  unusable: number;
}

/**
 * Plans `xsb llm fill --store STORE`: each pending prompt the store lacks is one call, in the order
 * the fill sends them, from the request the fill rebuilds (so its tokens are the real prompt's).
 * The bench's record → fill → replay loop spends its money here: plan each fill before paying it.
 */
export async function planFill(
  builder: CostPlanBuilder,
  options: { store: string },
): Promise<PlanFillResult> {
  const pending = readPendingPrompts(options.store);
  const stored = replayStoreKeys(options.store);
  let unusable = 0;
  for (const line of pending) {
    if (stored.has(line.key)) continue;
    const request = requestFromPending(line);
    if ('unusable' in request) {
      unusable += 1;
      continue;
    }
    const stage = request.stage ?? FILL_STAGE;
    builder.stage(stage);
    await builder.add({
      stage,
      request,
      outputTokens: Math.min(
        FILL_OUTPUT_ESTIMATES[stage] ?? UNKNOWN_STAGE_OUTPUT,
        request.maxTokens ?? Infinity,
      ),
    });
  }
  const alreadyStored = pending.filter((line) => stored.has(line.key)).length;
  if (alreadyStored > 0)
    builder.note(
      `${alreadyStored} of ${plural(pending.length, 'pending prompt')} the store already answers: not sent`,
    );
  if (unusable > 0)
    builder.note(
      `${plural(unusable, 'pending prompt')} ${unusable === 1 ? 'holds' : 'hold'} images or documents by hash only: filling a store from its pending file cannot send them (a bench run with a filling judge can); not counted`,
    );
  builder.note(
    'output tokens per prompt: the stage default batch stands in (a pending line does not say how many probes or claims it asks about)',
  );
  return { pending: pending.length, alreadyStored, unusable };
}
