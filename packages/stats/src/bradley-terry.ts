import { ValidationError } from '@xsb/core/errors';

/** One paired preference: `winner` was preferred to `loser`. */
export interface PairedPreference {
  winner: string;
  loser: string;
}

/**
 * Bradley–Terry strengths from paired preferences (P(i beats j) = p_i / (p_i + p_j)), fitted by Hunter's (2004)
 * minorise–maximise iteration, as log-strengths centred on 0 (only differences mean anything). `prior` adds that
 * many virtual games, half won and half lost, of each item against a fixed reference of strength 1, so an item
 * that never won (or never lost) keeps a finite strength; 0 gives the plain maximum-likelihood fit.
 */
export function bradleyTerry(
  items: readonly string[],
  preferences: readonly PairedPreference[],
  options: { prior?: number; tolerance?: number; maxIterations?: number } = {},
): Map<string, number> {
  const prior = options.prior ?? 1;
  const index = new Map(items.map((item, i) => [item, i]));
  const n = items.length;
  const wins = new Float64Array(n);
  const games = Array.from({ length: n }, () => new Float64Array(n));
  for (const { winner, loser } of preferences) {
    const w = index.get(winner);
    const l = index.get(loser);
    if (w === undefined || l === undefined || w === l)
      throw new ValidationError(
        `bradleyTerry: a preference between unknown or equal items (${winner}, ${loser})`,
        {
          field: 'preferences',
        },
      );
    wins[w]! += 1;
    games[w]![l]! += 1;
    games[l]![w]! += 1;
  }
  let p = new Float64Array(n).fill(1);
  for (let iteration = 0; iteration < (options.maxIterations ?? 10_000); iteration += 1) {
    const next = new Float64Array(n);
    for (let i = 0; i < n; i += 1) {
      let denominator = prior / (p[i]! + 1);
      for (let j = 0; j < n; j += 1)
        if (j !== i && games[i]![j]! > 0) denominator += games[i]![j]! / (p[i]! + p[j]!);
      next[i] = denominator === 0 ? p[i]! : (wins[i]! + prior / 2) / denominator;
    }
    // Without a prior the scale is free: fix the geometric mean at 1.
    const meanLog = next.reduce((sum, value) => sum + Math.log(value), 0) / n;
    if (prior === 0) for (let i = 0; i < n; i += 1) next[i] = next[i]! / Math.exp(meanLog);
    const change = next.reduce(
      (max, value, i) => Math.max(max, Math.abs(Math.log(value) - Math.log(p[i]!))),
      0,
    );
    p = next;
    if (change < (options.tolerance ?? 1e-12)) break;
  }
  const logs = Array.from(p, (value) => Math.log(value));
  const centre = logs.reduce((a, b) => a + b, 0) / n;
  return new Map(items.map((item, i) => [item, logs[i]! - centre]));
}
