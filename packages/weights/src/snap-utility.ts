import { UTILITY_LEVELS } from '@xsb/core';

/** The nearest utility level; a tie goes up (never lower what the judge said); outside [0, 1]: undefined, not a guessed scale. */
export function snapUtility(value: number): number | undefined {
  if (!Number.isFinite(value) || value < 0 || value > 1) return undefined;
  let best: number = UTILITY_LEVELS[0];
  for (const level of UTILITY_LEVELS) {
    if (Math.abs(value - level) <= Math.abs(value - best) + 1e-9) best = level;
  }
  return best;
}

/** Mean and population standard deviation (divide by n): the k samples are all the judgments there are. */
export function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  return { mean, std: Math.sqrt(variance) };
}

/** Spec 000: a weight row whose std is greater than this is marked high-variance. */
export const HIGH_VARIANCE_STD = 0.25;
