import type { MeanInterval } from '@xsb/stats';

/** Three decimals, `–` for a missing value: the reports' one number format (like the markdown tables). */
export function formatValue(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

/** A number never appears without its n, nor a mean (n > 1) without its interval. */
export function meanIntervalCell(stat: MeanInterval | undefined, digits = 3): string {
  if (!stat || stat.mean === null) return `–<br><span class="small muted">n=${stat?.n ?? 0}</span>`;
  const interval =
    stat.n <= 1 || stat.ci_low === null || stat.ci_high === null
      ? ''
      : `[${formatValue(stat.ci_low, digits)}, ${formatValue(stat.ci_high, digits)}] `;
  return `<b>${formatValue(stat.mean, digits)}</b><br><span class="small muted">${interval}n=${stat.n}</span>`;
}
