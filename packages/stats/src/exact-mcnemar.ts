import { ValidationError } from '@xsb/core/errors';
export interface McNemarResult {
  /** Pairs where A is yes and B is no. */
  b: number;
  /** Pairs where A is no and B is yes. */
  c: number;
  /** Two-sided exact p: min(1, 2·P(X ≤ min(b, c))) for X ~ Binomial(b + c, ½); 1 when b + c = 0. */
  p: number;
}

/** log P(X ≤ k) for X ~ Binomial(n, ½), summed in log space so large n does not underflow. */
function logBinomialHalfCdf(k: number, n: number): number {
  const ln2n = n * Math.LN2;
  let logChoose = 0;
  let max = Number.NEGATIVE_INFINITY;
  const terms: number[] = [];
  for (let i = 0; i <= k; i += 1) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    const term = logChoose - ln2n;
    terms.push(term);
    if (term > max) max = term;
  }
  let sum = 0;
  for (const term of terms) sum += Math.exp(term - max);
  return max + Math.log(sum);
}

/** Exact McNemar test on the discordant pair counts b and c. */
export function exactMcNemar(b: number, c: number): McNemarResult {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0)
    throw new ValidationError(`McNemar counts must be non-negative integers, got b=${b}, c=${c}`, {
      field: 'b, c',
    });
  const n = b + c;
  if (n === 0) return { b, c, p: 1 };
  const p = Math.min(1, 2 * Math.exp(logBinomialHalfCdf(Math.min(b, c), n)));
  return { b, c, p };
}

/** Discordant counts over paired binary units (A's and B's answer on the same unit). */
export function discordantPairs(pairs: Iterable<readonly [boolean, boolean]>): { b: number; c: number } {
  let b = 0;
  let c = 0;
  for (const [a, bValue] of pairs) {
    if (a && !bValue) b += 1;
    else if (!a && bValue) c += 1;
  }
  return { b, c };
}
