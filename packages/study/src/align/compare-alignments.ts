import { deriveSeed } from '@xsb/core';
import { type PairedVerdict, pairedComparison } from '@xsb/stats';
import type { EvaluatorAlignment } from './align-evaluator';
import type { AlignBootstrap } from './case-rankings';

export interface AlignmentComparison {
  a: string;
  b: string;
  /** Cases where both evaluators have a ρ: the pairs. */
  n_cases: number;
  /** Mean over those cases of ρ_b − ρ_a. */
  mean_diff: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** `real` when the interval excludes 0 (B is closer to the annotators than A, or farther). */
  verdict: PairedVerdict | null;
}

/**
 * Is evaluator B really closer to people than evaluator A? The per-case ρ of both, paired over the cases both
 * have, and a seeded bootstrap over cases of the mean difference B − A.
 */
export function compareAlignments(
  a: EvaluatorAlignment,
  b: EvaluatorAlignment,
  bootstrap: AlignBootstrap,
): AlignmentComparison {
  const units = Object.entries(a.per_case).flatMap(([caseId, rhoA]) => {
    const rhoB = b.per_case[caseId];
    return rhoA === null || rhoB === null || rhoB === undefined
      ? []
      : [{ cluster: caseId, a: rhoA, b: rhoB }];
  });
  const result = pairedComparison(units, {
    seed: deriveSeed(bootstrap.seed, `compare|${a.evaluator}|${b.evaluator}`),
    resamples: bootstrap.resamples ?? 2000,
    confidence: bootstrap.confidence ?? 0.95,
  });
  return {
    a: a.evaluator,
    b: b.evaluator,
    n_cases: result.n_cases,
    mean_diff: result.mean_diff,
    ci_low: result.ci_low,
    ci_high: result.ci_high,
    verdict: result.verdict,
  };
}
