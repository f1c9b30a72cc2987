import { ValidationError } from '@xsb/core/errors';
import { normalQuantile } from './normal-quantile';

export interface PowerSettings {
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Probability of detecting the effect (default 0.8). */
  power?: number;
}

const zSum = (settings: PowerSettings) =>
  normalQuantile(1 - (settings.alpha ?? 0.05) / 2) + normalQuantile(settings.power ?? 0.8);

/**
 * The smallest mean paired difference a comparison of `nCases` cases can detect: (z₁₋α/₂ + z_power) ·
 * sd / √n, with sd the spread of the per-case mean differences. Null when n < 2 or sd unknown.
 */
export function minimumDetectableEffect(
  sd: number | null,
  nCases: number,
  settings: PowerSettings = {},
): number | null {
  if (sd === null || !Number.isFinite(sd) || nCases < 2) return null;
  return (zSum(settings) * sd) / Math.sqrt(nCases);
}

export interface CasesNeeded {
  /** Independent units needed: ⌈((z₁₋α/₂ + z_power) · sd / effect)²⌉. */
  units: number;
  /** 1 + (m − 1)·ICC for m nested rows per case (1 without nesting). */
  design_effect: number;
  /** Rows needed with nesting: units × design effect. */
  rows: number;
  /** Cases needed: ⌈rows / m⌉ (= units without nesting). */
  cases: number;
  z_alpha: number;
  z_power: number;
}

/** How many cases a paired comparison needs to detect `effect` (see {@link CasesNeeded}). */
export function casesNeeded(
  input: { sd: number; effect: number; icc?: number; perCluster?: number } & PowerSettings,
): CasesNeeded {
  const { sd, effect } = input;
  if (!(sd > 0) || !Number.isFinite(sd))
    throw new ValidationError(`must be a positive number, got ${sd}`, { field: 'sd' });
  if (!(effect !== 0) || !Number.isFinite(effect))
    throw new ValidationError(`must be a non-zero number, got ${effect}`, { field: 'effect' });
  const icc = input.icc ?? 0;
  const m = input.perCluster ?? 1;
  if (!(icc >= 0 && icc <= 1)) throw new ValidationError(`must be in [0, 1], got ${icc}`, { field: 'icc' });
  if (!Number.isInteger(m) || m < 1)
    throw new ValidationError(`per-cluster rows must be a positive integer, got ${m}`, {
      field: 'perCluster',
    });
  const zAlpha = normalQuantile(1 - (input.alpha ?? 0.05) / 2);
  const zPower = normalQuantile(input.power ?? 0.8);
  // The epsilon keeps an exact square (16.000000000000004) from rounding up to the next case.
  const units = Math.ceil((((zAlpha + zPower) * sd) / Math.abs(effect)) ** 2 - 1e-9);
  const designEffect = 1 + (m - 1) * icc;
  const rows = Math.ceil(units * designEffect);
  return {
    units,
    design_effect: designEffect,
    rows,
    cases: m === 1 ? rows : Math.ceil(rows / m),
    z_alpha: zAlpha,
    z_power: zPower,
  };
}
