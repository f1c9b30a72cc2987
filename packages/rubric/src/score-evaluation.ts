import type { RubricItemResult, RubricVerdict } from './schemas/rubric-evaluation';
import { RUBRIC_DIMENSIONS, type RubricDimension } from './schemas/rubric-instance';

/**
 * What an `error` verdict (an answer that stayed unparseable) does to a score: `report` leaves it out
 * of the denominator and counts it in the report; `as-no` scores it as "no", like PresentBench.
 */
export type ErrorPolicy = 'report' | 'as-no';

export interface DimensionScore {
  items: number;
  yes: number;
  no: number;
  /** Answers that read neither yes nor no (`maybe`, `not applicable` under the strict parser): not satisfied. */
  other: number;
  not_applicable: number;
  error: number;
  not_judged: number;
  /** Share of "yes" among scored items (yes, no, other, not applicable; errors by policy), 0..1; null when none. */
  score: number | null;
}

export interface PaperScore {
  /** Named so reports never confuse it with PresentBench's weighted mode. */
  method: 'paper-mean-of-dimensions';
  error_policy: ErrorPolicy;
  dimensions: Record<RubricDimension, DimensionScore>;
  /** Mean of the five dimension scores × 100 (spec 001, §3.3.3); null unless all five are scored. */
  total_percent: number | null;
  error_count: number;
  not_judged_count: number;
}

function countVerdicts(items: RubricItemResult[]): Record<RubricVerdict, number> {
  const counts: Record<RubricVerdict, number> = {
    yes: 0,
    no: 0,
    other: 0,
    not_applicable: 0,
    error: 0,
    not_judged: 0,
  };
  for (const item of items) counts[item.verdict] += 1;
  return counts;
}

/**
 * The paper's score (spec 001, §3.3.3): s_i = satisfied items / N_i in dimension i, total = mean of
 * the five × 100. Any answer but yes ("no", "not applicable", `maybe` …) is an item that is not
 * satisfied, so it stays in N_i (as in PresentBench's scoring.py, which keeps every item in the
 * denominator); unjudged items are outside it, errors follow `policy`. A dimension without a scored
 * item has score null (printed n/a), never 0.
 */
export function scorePaper(items: RubricItemResult[], policy: ErrorPolicy = 'report'): PaperScore {
  const dimensions = {} as Record<RubricDimension, DimensionScore>;
  for (const dimension of RUBRIC_DIMENSIONS) {
    const mine = items.filter((item) => item.dimension === dimension);
    const counts = countVerdicts(mine);
    const scored =
      counts.yes + counts.no + counts.other + counts.not_applicable + (policy === 'as-no' ? counts.error : 0);
    dimensions[dimension] = {
      items: mine.length,
      yes: counts.yes,
      no: counts.no,
      other: counts.other,
      not_applicable: counts.not_applicable,
      error: counts.error,
      not_judged: counts.not_judged,
      score: scored > 0 ? counts.yes / scored : null,
    };
  }
  const scores = RUBRIC_DIMENSIONS.map((dimension) => dimensions[dimension].score);
  const complete = scores.every((score): score is number => score !== null);
  const all = countVerdicts(items);
  return {
    method: 'paper-mean-of-dimensions',
    error_policy: policy,
    dimensions,
    total_percent: complete ? (scores.reduce((sum, score) => sum + score, 0) / scores.length) * 100 : null,
    error_count: all.error,
    not_judged_count: all.not_judged,
  };
}

/**
 * Mean of a numeric field over instances, grouped by category, plus the overall mean. Rows without a
 * value (failed, offline) are left out of the means; rows without a category only count overall.
 */
export function meansByCategory<T extends { category: string | null }>(
  rows: T[],
  value: (row: T) => number | null,
): {
  overall: { mean: number | null; count: number };
  categories: Record<string, { mean: number | null; count: number }>;
} {
  const mean = (values: number[]): number | null =>
    values.length > 0 ? values.reduce((sum, v) => sum + v, 0) / values.length : null;
  const numbers = (subset: T[]): number[] =>
    subset.map(value).filter((v): v is number => v !== null && Number.isFinite(v));
  const categories: Record<string, { mean: number | null; count: number }> = {};
  const known = rows.map((row) => row.category).filter((category): category is string => category !== null);
  for (const category of [...new Set(known)].sort()) {
    const values = numbers(rows.filter((row) => row.category === category));
    categories[category] = { mean: mean(values), count: values.length };
  }
  const all = numbers(rows);
  return { overall: { mean: mean(all), count: all.length }, categories };
}

/**
 * A dimension's score for people to read: null (n/a) when any of its items is not judged, since a share
 * of the judged few (1 "no" of 13 items: 0.0%) reads as a verdict on the dimension. JSON keeps `score`
 * and the counts; every printed table and the HTML report show this instead.
 */
export function shownDimensionScore(score: DimensionScore): number | null {
  return score.not_judged > 0 ? null : score.score;
}

/** The paper total for people to read: n/a while any item of the evaluation is not judged. */
export function shownPaperTotal(
  paper: Pick<PaperScore, 'total_percent' | 'not_judged_count'>,
): number | null {
  return paper.not_judged_count > 0 ? null : paper.total_percent;
}

/**
 * The counts beside a dimension's score: `1 of 13 judged: 1 no, 12 not judged` when items are not
 * judged, otherwise every count as before (`3 yes, 1 no, 0 unanswered, 0 not judged`).
 */
export function dimensionCounts(score: Omit<DimensionScore, 'score'>): string {
  const counts: Array<[number, string]> = [
    [score.yes, 'yes'],
    [score.no, 'no'],
    [score.other, 'other'],
    [score.not_applicable, 'not applicable'],
    [score.error, 'unanswered'],
    [score.not_judged, 'not judged'],
  ];
  if (score.not_judged === 0) {
    return counts
      .filter(([count, label]) => count > 0 || ['yes', 'no', 'unanswered', 'not judged'].includes(label))
      .map(([count, label]) => `${count} ${label}`)
      .join(', ');
  }
  const listed = counts.filter(([count]) => count > 0).map(([count, label]) => `${count} ${label}`);
  return `${score.items - score.not_judged} of ${score.items} judged: ${listed.join(', ')}`;
}

/** `n/a (1 of 13 judged: 1 no, 12 not judged)` or `75.0% (3 yes, 1 no, 0 unanswered, 0 not judged)`. */
export function describeDimensionScore(score: DimensionScore): string {
  const shown = shownDimensionScore(score);
  return `${shown === null ? 'n/a' : `${(shown * 100).toFixed(1)}%`} (${dimensionCounts(score)})`;
}
