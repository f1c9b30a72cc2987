/** A share (k of n) with its Wilson score interval. */
export interface ShareInterval {
  n: number;
  k: number;
  share: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

/**
 * The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9), for the
 * z of a confidence level.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile needs 0 < p < 1, got ${p}`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/**
 * Wilson score interval for k successes in n trials (Wilson 1927): unlike the normal approximation it
 * stays inside [0, 1] and is honest at k = 0 or k = n with the few decks a meta-evaluation has.
 * n = 0 gives nulls.
 */
export function wilsonInterval(k: number, n: number, confidence = 0.95): ShareInterval {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n) {
    throw new RangeError(`wilson interval needs integers 0 <= k <= n, got k=${k} n=${n}`);
  }
  if (n === 0) return { n, k, share: null, ci_low: null, ci_high: null };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { n, k, share: p, ci_low: Math.max(0, centre - half), ci_high: Math.min(1, centre + half) };
}
