import { ValidationError } from '@xsb/core/errors';
/** Ranks 1..n, ascending; tied values share the mean of their positions (fractional ranking). */
export function averageRanks(values: number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (
      end + 1 < order.length &&
      (order[end + 1] as { value: number }).value === (order[start] as { value: number }).value
    ) {
      end += 1;
    }
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k += 1) ranks[(order[k] as { index: number }).index] = rank;
    start = end + 1;
  }
  return ranks;
}

function pearson(a: number[], b: number[]): number | null {
  const n = a.length;
  const meanA = a.reduce((s, v) => s + v, 0) / n;
  const meanB = b.reduce((s, v) => s + v, 0) / n;
  let cov = 0;
  let varA = 0;
  let varB = 0;
  for (let i = 0; i < n; i += 1) {
    const da = (a[i] as number) - meanA;
    const db = (b[i] as number) - meanB;
    cov += da * db;
    varA += da * da;
    varB += db * db;
  }
  if (varA === 0 || varB === 0) return null;
  return cov / Math.sqrt(varA * varB);
}

/**
 * Spearman's rho with ties averaged (Pearson correlation of fractional ranks, as scipy's
 * `spearmanr`); null when fewer than two pairs or either side is constant (scipy gives NaN).
 */
export function spearman(a: number[], b: number[]): number | null {
  if (a.length !== b.length)
    throw new ValidationError('spearman: the two lists differ in length', { field: 'b' });
  if (a.length < 2) return null;
  return pearson(averageRanks(a), averageRanks(b));
}
