export type PairedVerdict = 'real' | 'indeterminate' | 'no evidence';

/** Widths below this (relative to the interval's magnitude) are rounding noise of identical differences. */
const ZERO_WIDTH_TOLERANCE = 1e-12;

/**
 * Spec 002's reading of a paired 95% interval: `real` when it excludes 0; `indeterminate` when it has
 * zero width away from 0 (one case, or every difference identical: no variance was estimated);
 * otherwise `no evidence` (including a zero-width interval at 0). Null for an empty comparison.
 */
export function pairedVerdict(ciLow: number | null, ciHigh: number | null): PairedVerdict | null {
  if (ciLow === null || ciHigh === null) return null;
  const scale = Math.max(1, Math.abs(ciLow), Math.abs(ciHigh));
  if (Math.abs(ciHigh - ciLow) <= ZERO_WIDTH_TOLERANCE * scale) {
    return Math.abs(ciLow) <= ZERO_WIDTH_TOLERANCE * scale ? 'no evidence' : 'indeterminate';
  }
  return ciLow > 0 || ciHigh < 0 ? 'real' : 'no evidence';
}
