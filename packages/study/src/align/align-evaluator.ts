import { deriveSeed } from '@xsb/core';
import { bootstrapMeanInterval, spearman } from '@xsb/stats';
import type { AlignBootstrap, CaseRankings, CaseScores } from './case-rankings';
import { ranksOf } from './case-rankings';

/** An evaluator's alignment with the annotators, as PresentBench reports it, with what it rests on. */
export interface EvaluatorAlignment {
  evaluator: string;
  /** Mean over cases of the mean over annotators of Spearman's ρ (null with no usable case). */
  spearman: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Cases with at least two scored decks and one annotator: the cases the mean is over. */
  n_cases: number;
  /** Of those, cases where the evaluator scored every deck alike: ρ counted as 0 (it ranks nothing). */
  constant_cases: string[];
  /** Per case its ρ (mean over annotators); null where the evaluator scored fewer than two decks. */
  per_case: Record<string, number | null>;
}

/**
 * ρ of one case: per annotator, Spearman's ρ between the evaluator's scores of the decks and the annotator's
 * ranking (ties averaged; the rank negated, so agreeing in "better" is positive), then the mean over
 * annotators. Only decks the evaluator scored enter; null with fewer than two. Scores that are all equal carry
 * no ranking: ρ is 0, not undefined, so a judge that cannot tell decks apart gets no credit (`constant`).
 */
export function caseSpearman(
  scores: ReadonlyMap<string, number> | undefined,
  rankings: CaseRankings,
): { rho: number | null; constant: boolean } {
  const labels = rankings.labels.filter((label) => scores?.has(label));
  if (labels.length < 2 || rankings.rankings.size === 0) return { rho: null, constant: false };
  const values = labels.map((label) => scores!.get(label)!);
  if (values.every((value) => value === values[0])) return { rho: 0, constant: true };
  const rhos = [...rankings.rankings.values()].map((ranking) => {
    const ranks = ranksOf(ranking);
    return spearman(
      values,
      labels.map((label) => -ranks.get(label)!),
    )!;
  });
  return { rho: rhos.reduce((a, b) => a + b, 0) / rhos.length, constant: false };
}

/**
 * An evaluator's mean Spearman ρ with the annotators, PresentBench's way (per case and annotator, mean over
 * annotators, then over cases), with a seeded 95% percentile-bootstrap interval over cases.
 */
export function alignEvaluator(
  evaluator: string,
  scores: CaseScores,
  cases: readonly CaseRankings[],
  bootstrap: AlignBootstrap,
): EvaluatorAlignment {
  const perCase: Record<string, number | null> = {};
  const constant: string[] = [];
  const values: number[] = [];
  for (const rankings of cases) {
    const { rho, constant: isConstant } = caseSpearman(scores.get(rankings.case), rankings);
    perCase[rankings.case] = rho;
    if (rho === null) continue;
    values.push(rho);
    if (isConstant) constant.push(rankings.case);
  }
  const interval = bootstrapMeanInterval(values, {
    seed: deriveSeed(bootstrap.seed, `align|${evaluator}`),
    ...(bootstrap.resamples !== undefined ? { resamples: bootstrap.resamples } : {}),
    ...(bootstrap.confidence !== undefined ? { confidence: bootstrap.confidence } : {}),
  });
  return {
    evaluator,
    spearman: interval.mean,
    ci_low: interval.ci_low,
    ci_high: interval.ci_high,
    n_cases: values.length,
    constant_cases: constant,
    per_case: perCase,
  };
}
