import { ValidationError } from '@xsb/core/errors';
import { averageRanks } from './spearman';

/**
 * Kendall's coefficient of concordance W for m raters ranking the same n items (each row one rater's
 * scores or ranks, same item order; ties get average ranks and the tie correction):
 * W = 12·S / (m²(n³ − n) − m·Σ_j T_j), S = Σ_i (R_i − R̄)², T_j = Σ (t³ − t) over rater j's tie groups.
 * 1 = every rater ranks alike, 0 = no agreement. Null with fewer than two raters or items, or when every
 * rater ties everything.
 */
export function kendallW(ratings: readonly (readonly number[])[]): number | null {
  const m = ratings.length;
  const n = ratings[0]?.length ?? 0;
  if (ratings.some((row) => row.length !== n))
    throw new ValidationError('kendallW: every rater must rank the same items', { field: 'ratings' });
  if (m < 2 || n < 2) return null;
  const ranks = ratings.map((row) => averageRanks([...row]));
  const sums = Array.from({ length: n }, (_, i) => ranks.reduce((total, row) => total + row[i]!, 0));
  const meanSum = sums.reduce((a, b) => a + b, 0) / n;
  const s = sums.reduce((total, value) => total + (value - meanSum) ** 2, 0);
  const ties = ranks.reduce((total, row) => {
    const counts = new Map<number, number>();
    for (const rank of row) counts.set(rank, (counts.get(rank) ?? 0) + 1);
    return total + [...counts.values()].reduce((t, count) => t + count ** 3 - count, 0);
  }, 0);
  const denominator = m * m * (n ** 3 - n) - m * ties;
  return denominator === 0 ? null : (12 * s) / denominator;
}
