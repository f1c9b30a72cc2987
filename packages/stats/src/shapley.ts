import { ValidationError } from '@xsb/core/errors';
/**
 * Exact Shapley values of n players from a value function over subsets, given as bit masks (bit i set
 * ⇔ player i is in the subset): φᵢ = Σ_{S ⊆ N∖{i}} |S|!·(n−|S|−1)!/n! · (v(S ∪ {i}) − v(S)). The values
 * add up to v(N) − v(∅). `values[mask]` must hold v for every one of the 2ⁿ masks.
 */
export function shapleyValues(n: number, values: ArrayLike<number>): number[] {
  if (!Number.isInteger(n) || n < 0 || n > 20)
    throw new ValidationError(`must be an integer 0..20, got ${n}`, { field: 'n' });
  const size = 1 << n;
  if (values.length < size)
    throw new ValidationError(`need ${size} subset values, got ${values.length}`, { field: 'values' });
  const factorial = [1];
  for (let i = 1; i <= n; i += 1) factorial.push(factorial[i - 1]! * i);
  const popcount = (mask: number) => {
    let count = 0;
    for (let m = mask; m !== 0; m &= m - 1) count += 1;
    return count;
  };
  const phi = new Array<number>(n).fill(0);
  for (let mask = 0; mask < size; mask += 1) {
    const s = popcount(mask);
    const weight = (factorial[s]! * factorial[Math.max(n - s - 1, 0)]!) / factorial[n]!;
    for (let i = 0; i < n; i += 1) {
      if (mask & (1 << i)) continue;
      phi[i]! += weight * (values[mask | (1 << i)]! - values[mask]!);
    }
  }
  return phi;
}
