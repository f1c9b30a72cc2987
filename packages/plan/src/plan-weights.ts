import { existsSync } from 'node:fs';
import { InternalError, type Probe, type RunLayout, type WorkUnit } from '@xsb/core';
import {
  type CompletionRequest,
  describeJudge,
  type Judge,
  type JudgeDescription,
  type LlmClient,
} from '@xsb/llm';
import {
  type AudienceProfile,
  BUILT_IN_AUDIENCES,
  createUtilityJudge,
  WEIGHT_DEFAULTS,
  WEIGHTS_STAGE,
  weightsWorkList,
} from '@xsb/weights';
import { lexicalBankCheck } from './bank-judge';
import type { CostPlanBuilder } from './cost-plan-builder';

export { WEIGHTS_STAGE };

/** A client that must never be asked: a plan renders requests, it sends none. */
export function planningClient(judgeId: string): LlmClient {
  return {
    judgeId,
    complete: () => Promise.reject(new InternalError('a cost plan makes no model call')),
  };
}

/** The judge a plan builds a stage's work list with: the described judge, its client one that refuses every call. */
export function planningJudge(judge: JudgeDescription): Judge {
  return judge.kind === 'offline'
    ? { ...judge, kind: 'offline', client: null }
    : { ...judge, kind: judge.kind, client: planningClient(judge.id) };
}

/**
 * Prices a unit as the run decides it: its requests in sending order when it calls, `reusedCalls`
 * when its artifact is reused, nothing for a rule (the offline judges of stages 2 and 3 write no ledger line).
 */
export async function priceUnit(
  builder: CostPlanBuilder,
  unit: WorkUnit<CompletionRequest>,
  reusedCalls: number,
  assumption?: string,
): Promise<void> {
  const { decision } = unit;
  if (decision.kind === 'reuse') builder.reuse(unit.stage, reusedCalls);
  if (decision.kind !== 'call') return;
  const because = assumption ?? decision.assumption;
  for (const request of decision.requests)
    await builder.add({
      stage: unit.stage,
      request,
      outputTokens: decision.outputTokens,
      ...(because ? { assumption: because } : {}),
    });
}

export interface PlanWeightsOptions {
  layout: RunLayout;
  /** The (case, audience) pairs the command would weight, in its order. */
  pairs: ReadonlyArray<{ caseLabel: string; audience: string }>;
  profiles?: ReadonlyMap<string, AudienceProfile>;
  k?: number;
  batchSize?: number;
  force?: boolean;
  /** The weights file of a pair when not `weights/<audience>.jsonl` (another k). */
  weightsFile?: (caseLabel: string, audience: string) => string;
  /**
   * A stand-in bank for cases whose bank an earlier step of the same run makes (missing or to be
   * made anew), with the assumption in words; undefined for cases whose bank on disk is used.
   */
  assumedBank?: (caseLabel: string) => { probes: Probe[]; assumption: string } | undefined;
  /** The judge as described for the plan; default `describeJudge` of the plan's judge. */
  judge?: JudgeDescription;
}

/**
 * Stage 3's calls: the work list `xsb weights` runs (`weightsWorkList`), priced. A pair calls once per
 * batch of the bank and sample, rendered with the stage's own request; a finished pair is reused;
 * the offline judge decides by its rule and writes no ledger line, so it plans nothing.
 */
export async function planWeights(
  builder: CostPlanBuilder,
  options: PlanWeightsOptions,
): Promise<{ failed: Array<{ caseLabel: string; audience: string }> }> {
  const failed: Array<{ caseLabel: string; audience: string }> = [];
  const judge = options.judge ?? describeJudge(builder.context.judge);
  if (judge.kind === 'offline') return { failed };
  const profiles = options.profiles ?? new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile]));
  builder.stage(WEIGHTS_STAGE);
  const pairs = options.pairs.filter(({ caseLabel, audience }) => {
    if (profiles.has(audience)) return true;
    builder.note(`weights ${caseLabel}/${audience}: no profile for the audience, the pair fails`);
    failed.push({ caseLabel, audience });
    return false;
  });
  const assumed = new Map(
    pairs.flatMap(({ caseLabel }) => {
      const bank = options.assumedBank?.(caseLabel);
      return bank ? [[caseLabel, bank] as const] : [];
    }),
  );
  const units = await weightsWorkList(options.layout, pairs, {
    judge: createUtilityJudge(planningJudge(judge)),
    profiles,
    k: options.k ?? WEIGHT_DEFAULTS.k,
    batchSize: options.batchSize ?? WEIGHT_DEFAULTS.batchSize,
    force: options.force ?? false,
    ...(options.weightsFile ? { weightsFile: options.weightsFile } : {}),
    banks: new Map([...assumed].map(([caseLabel, bank]) => [caseLabel, bank.probes])),
  });
  const checkBank = lexicalBankCheck(builder, options.layout);
  for (const unit of units) {
    const { caseLabel, audience, bank } = unit.input;
    if (bank instanceof Error) {
      const probesFile = options.layout.probesFile(caseLabel);
      const why = existsSync(probesFile) ? bank.message : `no probe bank (${probesFile})`;
      builder.note(`weights ${caseLabel}/${audience}: ${why}; the pair fails`);
      failed.push({ caseLabel, audience });
      continue;
    }
    if (!assumed.has(caseLabel)) await checkBank(WEIGHTS_STAGE, caseLabel);
    await priceUnit(builder, unit, unit.input.batches.length, assumed.get(caseLabel)?.assumption);
  }
  return { failed };
}
