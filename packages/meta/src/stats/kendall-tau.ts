/**
 * Kendall's tau-b between two paired samples (ties in either are corrected for, as in scipy's
 * `kendalltau`): (concordant − discordant) / sqrt((n0 − n1)(n0 − n2)), n0 = n(n − 1)/2, n1 and n2 the
 * pairs tied in x and in y. O(n²), meant for the tens to hundreds of decks a meta-evaluation has.
 * Null when n < 2 or either sample is constant.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new RangeError(`samples differ in length (${x.length} vs ${y.length})`);
  const n = x.length;
  if (n < 2) return null;
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let i = 0; i < n; i += 1) {
    for (let j = i + 1; j < n; j += 1) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0) tiedX += 1;
      if (dy === 0) tiedY += 1;
      if (dx === 0 || dy === 0) continue;
      if (dx === dy) concordant += 1;
      else discordant += 1;
    }
  }
  const pairs = (n * (n - 1)) / 2;
  const denominator = Math.sqrt((pairs - tiedX) * (pairs - tiedY));
  return denominator === 0 ? null : (concordant - discordant) / denominator;
}
