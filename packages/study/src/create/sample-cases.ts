import { compareCodePoints, createSeededRandom, deriveSeed } from '@xsb/core';

/** A seeded Fisher–Yates shuffle (a copy). */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const random = createSeededRandom(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/**
 * A sample of `n` cases stratified by `stratum` (the scene): each stratum gets its share of `n` by largest
 * remainder (ties to the larger stratum, then by name), at least one while it fits, and its cases are drawn by a
 * seeded shuffle. All cases when `n` covers them. Returned in case order.
 */
export function sampleCases<T extends { case: string; stratum: string }>(
  cases: readonly T[],
  n: number,
  seed: number,
): T[] {
  if (n >= cases.length) return [...cases].sort((a, b) => compareCodePoints(a.case, b.case));
  const strata = new Map<string, T[]>();
  for (const item of [...cases].sort((a, b) => compareCodePoints(a.case, b.case)))
    strata.set(item.stratum, [...(strata.get(item.stratum) ?? []), item]);
  const names = [...strata.keys()].sort(compareCodePoints);
  const exact = names.map((name) => (strata.get(name)!.length * n) / cases.length);
  const quota = exact.map(Math.floor);
  const order = names
    .map((name, i) => ({ i, remainder: exact[i]! - quota[i]!, size: strata.get(name)!.length, name }))
    .sort((a, b) => b.remainder - a.remainder || b.size - a.size || compareCodePoints(a.name, b.name));
  for (let left = n - quota.reduce((a, b) => a + b, 0), k = 0; left > 0; left -= 1, k += 1)
    quota[order[k % order.length]!.i]! += 1;
  return names
    .flatMap((name, i) =>
      seededShuffle(strata.get(name)!, deriveSeed(seed, `sample|${name}`)).slice(0, quota[i]),
    )
    .sort((a, b) => compareCodePoints(a.case, b.case));
}
