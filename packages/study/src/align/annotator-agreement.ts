import { deriveSeed } from '@xsb/core';
import { bootstrapMeanInterval, kendallW, spearman } from '@xsb/stats';
import type { AlignBootstrap, CaseRankings } from './case-rankings';
import { ranksOf } from './case-rankings';

/** A mean over cases with its bootstrap interval and the cases it rests on. */
export interface CaseMean {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Cases with at least two annotators. */
  n_cases: number;
}

function meanOverCases(values: number[], bootstrap: AlignBootstrap, label: string): CaseMean {
  const interval = bootstrapMeanInterval(values, {
    seed: deriveSeed(bootstrap.seed, label),
    ...(bootstrap.resamples !== undefined ? { resamples: bootstrap.resamples } : {}),
    ...(bootstrap.confidence !== undefined ? { confidence: bootstrap.confidence } : {}),
  });
  return { value: interval.mean, ci_low: interval.ci_low, ci_high: interval.ci_high, n_cases: values.length };
}

const withTwoAnnotators = (cases: readonly CaseRankings[]) => cases.filter((c) => c.rankings.size >= 2);

/**
 * The human ceiling (PresentBench's "Human" row): per case, each annotator's ranking against the mean rank the
 * other annotators gave each deck (Spearman's ρ, ties averaged), the mean over annotators, then over cases.
 * Only cases with two or more annotators count.
 */
export function humanCeiling(cases: readonly CaseRankings[], bootstrap: AlignBootstrap): CaseMean {
  const values = withTwoAnnotators(cases).map((rankings) => {
    const ranks = [...rankings.rankings.values()].map(ranksOf);
    const rhos = ranks.map((mine, i) => {
      const others = ranks.filter((_, j) => j !== i);
      const othersMean = rankings.labels.map(
        (label) => others.reduce((total, r) => total + r.get(label)!, 0) / others.length,
      );
      // Undefined only when the others' mean ranks tie every deck: no ranking to agree with, so 0.
      return (
        spearman(
          rankings.labels.map((label) => mine.get(label)!),
          othersMean,
        ) ?? 0
      );
    });
    return rhos.reduce((a, b) => a + b, 0) / rhos.length;
  });
  return meanOverCases(values, bootstrap, 'human_ceiling');
}

/** Kendall's W among the annotators of each case (cases with two or more), averaged over cases. */
export function annotatorConcordance(cases: readonly CaseRankings[], bootstrap: AlignBootstrap): CaseMean {
  const values = withTwoAnnotators(cases).flatMap((rankings) => {
    const rows = [...rankings.rankings.values()].map((ranking) => {
      const ranks = ranksOf(ranking);
      return rankings.labels.map((label) => ranks.get(label)!);
    });
    const w = kendallW(rows);
    return w === null ? [] : [w];
  });
  return meanOverCases(values, bootstrap, 'kendall_w');
}
