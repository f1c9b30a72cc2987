import { ValidationError } from '@xsb/core/errors';
/** Raw agreement and Cohen's kappa of two raters over the same items (nominal categories). */
export interface PairAgreement {
  n: number;
  agreement: number | null;
  /** (p_o − p_e) / (1 − p_e); null when n = 0 or p_e = 1 (both raters used one and the same label only). */
  kappa: number | null;
  expected_agreement: number | null;
}

/** Cohen's kappa (1960): observed agreement against p_e = Σ_k p_a(k)·p_b(k), chance at these marginals. */
export function cohenKappa(a: readonly string[], b: readonly string[]): PairAgreement {
  if (a.length !== b.length)
    throw new ValidationError(`rater lists differ in length (${a.length} vs ${b.length})`, { field: 'b' });
  const n = a.length;
  if (n === 0) return { n, agreement: null, kappa: null, expected_agreement: null };
  const countsA = new Map<string, number>();
  const countsB = new Map<string, number>();
  let same = 0;
  for (let i = 0; i < n; i += 1) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) same += 1;
    countsA.set(x, (countsA.get(x) ?? 0) + 1);
    countsB.set(y, (countsB.get(y) ?? 0) + 1);
  }
  const observed = same / n;
  let expected = 0;
  for (const [label, count] of countsA) expected += (count / n) * ((countsB.get(label) ?? 0) / n);
  const kappa = expected >= 1 - 1e-12 ? null : (observed - expected) / (1 - expected);
  return { n, agreement: observed, kappa, expected_agreement: expected };
}
