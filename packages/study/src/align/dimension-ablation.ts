import { alignEvaluator, type EvaluatorAlignment } from './align-evaluator';
import type { AlignBootstrap, CaseRankings } from './case-rankings';

/** Per case, label → the rubric's score per dimension (null where the dimension is n/a). */
export type CaseDimensionScores = ReadonlyMap<
  string,
  ReadonlyMap<string, Readonly<Record<string, number | null>>>
>;

export interface AblationRow extends EvaluatorAlignment {
  dimensions: string[];
}

/** Every non-empty subset of the dimensions, smallest first, each in the dimensions' order. */
export function dimensionSubsets(dimensions: readonly string[]): string[][] {
  const subsets: string[][] = [];
  for (let mask = 1; mask < 1 << dimensions.length; mask += 1)
    subsets.push(dimensions.filter((_, i) => mask & (1 << i)));
  return subsets.sort((x, y) => x.length - y.length);
}

/**
 * PresentBench's Table 5 for any rubric judge: for every non-empty subset of the dimensions, the score of a
 * deck is the mean of those dimensions' scores (the paper total is the mean of all five), and its alignment
 * with the annotators is computed as for any evaluator. A deck with a subset dimension n/a has no score there.
 */
export function dimensionAblation(
  scores: CaseDimensionScores,
  dimensions: readonly string[],
  cases: readonly CaseRankings[],
  bootstrap: AlignBootstrap,
): AblationRow[] {
  return dimensionSubsets(dimensions).map((subset) => {
    const subsetScores = new Map(
      [...scores].map(([caseId, decks]) => [
        caseId,
        new Map(
          [...decks].flatMap(([label, byDimension]) => {
            const values = subset.map((dimension) => byDimension[dimension] ?? null);
            return values.some((value) => value === null)
              ? []
              : [[label, values.reduce((a, b) => a! + b!, 0)! / values.length] as const];
          }),
        ),
      ]),
    );
    return {
      dimensions: subset,
      ...alignEvaluator(`rubric[${subset.join('+')}]`, subsetScores, cases, bootstrap),
    };
  });
}
