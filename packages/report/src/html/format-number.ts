/** Three decimals, `–` for a missing value: the reports' one number format (like the markdown tables). */
export function formatValue(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

export interface IntervalLike {
  mean: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
}

/**
 * `mean [low, high] (n=N)`; with n ≤ 1 there is no interval to show, so only the value and n. A number
 * never appears without its n, and a mean never without its interval.
 */
export function formatMeanInterval(stat: IntervalLike | undefined, digits = 3): string {
  if (!stat || stat.mean === null) return `– (n=${stat?.n ?? 0})`;
  if (stat.n <= 1 || stat.ci_low === null || stat.ci_high === null)
    return `${formatValue(stat.mean, digits)} (n=${stat.n})`;
  return `${formatValue(stat.mean, digits)} [${formatValue(stat.ci_low, digits)}, ${formatValue(stat.ci_high, digits)}] (n=${stat.n})`;
}

/** The same as {@link formatMeanInterval} as table-cell HTML: the mean first, interval and n below it. */
export function meanIntervalCell(stat: IntervalLike | undefined, digits = 3): string {
  if (!stat || stat.mean === null) return `–<br><span class="small muted">n=${stat?.n ?? 0}</span>`;
  const interval =
    stat.n <= 1 || stat.ci_low === null || stat.ci_high === null
      ? ''
      : `[${formatValue(stat.ci_low, digits)}, ${formatValue(stat.ci_high, digits)}] `;
  return `<b>${formatValue(stat.mean, digits)}</b><br><span class="small muted">${interval}n=${stat.n}</span>`;
}
