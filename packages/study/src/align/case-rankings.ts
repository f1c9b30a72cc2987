/** One case of a study as the tables read it: its blinded labels and every annotator's ranking (best first). */
export interface CaseRankings {
  case: string;
  labels: readonly string[];
  /** Annotator id → that annotator's ranking of the labels, best first (a permutation of `labels`). */
  rankings: ReadonlyMap<string, readonly string[]>;
}

/** Per case, label → score (higher = better) of one evaluator; a label without a score is left out. */
export type CaseScores = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** Seeded percentile bootstrap over cases. */
export interface AlignBootstrap {
  seed: number;
  resamples?: number;
  confidence?: number;
}

/** 1-based rank of each label in a best-first ranking. */
export function ranksOf(ranking: readonly string[]): Map<string, number> {
  return new Map(ranking.map((label, index) => [label, index + 1]));
}
