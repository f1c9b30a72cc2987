import { existsSync } from 'node:fs';
import {
  type AudienceProfile,
  InternalError,
  isXsbError,
  type Probe,
  probeSchema,
  type RunLayout,
  readJsonlAll,
} from '@xsb/core';
import { isOfflineJudge, type LlmClient } from '@xsb/llm';
import {
  BUILT_IN_AUDIENCES,
  buildUtilityJudgmentRequest,
  LlmUtilityJudge,
  plannedWeightCalls,
  WEIGHT_DEFAULTS,
} from '@xsb/weights';
import { lexicalBankCheck } from './bank-judge';
import type { CostPlanBuilder } from './cost-plan-builder';
import { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';

export const WEIGHTS_STAGE = 'weights';

/** A client that must never be asked: a plan renders requests, it sends none. */
export function planningClient(judgeId: string): LlmClient {
  return {
    judgeId,
    complete: () => Promise.reject(new InternalError('a cost plan makes no model call')),
  };
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
}

/**
 * Stage 3's calls: per pair, one request per batch of the bank and sample (`ceil(bank / batchSize)
 * × k`), rendered with the stage's own `buildUtilityJudgmentRequest`; a pair whose weights file is
 * finished (same bank, profile, judge, k) is reused. The offline `lexical` judge makes no call and
 * writes no ledger line, so it plans nothing.
 */
export async function planWeights(
  builder: CostPlanBuilder,
  options: PlanWeightsOptions,
): Promise<{ failed: Array<{ caseLabel: string; audience: string }> }> {
  const failed: Array<{ caseLabel: string; audience: string }> = [];
  const judgeId = builder.context.judge;
  if (isOfflineJudge(judgeId)) return { failed };
  const profiles =
    options.profiles ?? new Map(BUILT_IN_AUDIENCES.map((profile) => [profile.id, profile] as const));
  const k = options.k ?? WEIGHT_DEFAULTS.k;
  const batchSize = options.batchSize ?? WEIGHT_DEFAULTS.batchSize;
  const judge = new LlmUtilityJudge(planningClient(judgeId));
  const checkBank = lexicalBankCheck(builder, options.layout);
  builder.stage(WEIGHTS_STAGE);
  for (const { caseLabel, audience } of options.pairs) {
    const profile = profiles.get(audience);
    if (!profile) {
      builder.note(`weights ${caseLabel}/${audience}: no profile for the audience, the pair fails`);
      failed.push({ caseLabel, audience });
      continue;
    }
    let bank: Probe[];
    let assumption: string | undefined;
    const probesFile = options.layout.probesFile(caseLabel);
    const assumed = options.assumedBank?.(caseLabel);
    if (assumed) {
      bank = assumed.probes;
      assumption = assumed.assumption;
    } else if (existsSync(probesFile)) {
      try {
        bank = await readJsonlAll(probesFile, probeSchema);
      } catch (error) {
        if (!isXsbError(error)) throw error;
        builder.note(`weights ${caseLabel}/${audience}: ${error.message}; the pair fails`);
        failed.push({ caseLabel, audience });
        continue;
      }
      await checkBank(WEIGHTS_STAGE, caseLabel);
      const file = options.weightsFile?.(caseLabel, audience);
      const planned = await plannedWeightCalls(options.layout, caseLabel, audience, {
        judge,
        profiles,
        k,
        batchSize,
        force: options.force ?? false,
        ...(file ? { file } : {}),
      });
      if (planned === 0) {
        builder.reuse(WEIGHTS_STAGE, Math.ceil(bank.length / batchSize) * k);
        continue;
      }
    } else {
      builder.note(`weights ${caseLabel}/${audience}: no probe bank (${probesFile}); the pair fails`);
      failed.push({ caseLabel, audience });
      continue;
    }
    for (let start = 0; start < bank.length; start += batchSize) {
      const batch = bank.slice(start, start + batchSize);
      for (let sampleIndex = 0; sampleIndex < k; sampleIndex += 1) {
        const request = buildUtilityJudgmentRequest(profile, batch, sampleIndex);
        await builder.add({
          stage: WEIGHTS_STAGE,
          request,
          outputTokens: cappedOutput(
            OUTPUT_TOKEN_ESTIMATES.utilityPerProbe * batch.length,
            request.maxTokens,
          ),
          ...(assumption ? { assumption } : {}),
        });
      }
    }
  }
  return { failed };
}
