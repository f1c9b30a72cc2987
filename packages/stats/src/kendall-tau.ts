import { ValidationError } from '@xsb/core/errors';
/** Kendall's tau-b with ties corrected as scipy's `kendalltau`; O(n²), fine for a meta-evaluation's decks. */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length)
    throw new ValidationError(`samples differ in length (${x.length} vs ${y.length})`, { field: 'y' });
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
