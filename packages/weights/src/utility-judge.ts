import type { CallUsage, Probe } from '@xsb/core';
import type { CompletionRequest } from '@xsb/llm';
import type { AudienceProfile } from './schemas/audience-profile';

/** One raw judgment of one probe for one audience. */
export interface UtilityJudgment {
  /** The raw value the judge gave, before snapping (in [0, 1]). */
  value: number;
  rationale: string;
}

export interface JudgeBatchInput {
  audience: AudienceProfile;
  probes: readonly Probe[];
  /** 0-based index of this independent sample among the k judgments. */
  sampleIndex: number;
  k: number;
}

export interface JudgeBatchOutput {
  /** Judgments by probe id; ids of the batch that are absent failed for this sample. */
  judgments: Map<string, UtilityJudgment>;
  /** Why each missing probe id has no judgment. */
  failures: Map<string, string>;
}

export interface UtilityJudge {
  /** Recorded as the judge id in every weight row. */
  readonly id: string;
  /** Changes whenever the judge would answer differently (prompt, sampling, algorithm version). */
  readonly fingerprint: string;
  /** `callMade` hears the usage of each model call the batch makes. */
  judgeBatch(input: JudgeBatchInput, callMade?: (usage: CallUsage) => void): Promise<JudgeBatchOutput>;
  /**
   * The first request a model judge sends for this batch and sample (what a plan prices); absent for
   * a judge that calls no model (its work list units are decided by its rule).
   */
  requestFor?(input: JudgeBatchInput): CompletionRequest;
}
