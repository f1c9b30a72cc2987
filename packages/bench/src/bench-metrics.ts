import { DESIGN_METRICS } from '@xsb/design';
import { SUMMARY_METRICS } from '@xsb/metrics';
import { RUBRIC_DIMENSIONS } from '@xsb/rubric';
import type { BenchRow } from './schemas/bench-row';

/** The rubric metrics: the paper total and its five dimensions (0..100). */
const RUBRIC_METRICS = ['rubric_total', ...RUBRIC_DIMENSIONS.map((d) => `rubric.${d}`)];

/** The design metrics (@xsb/design's deck means), present when a run measured design. */
export const DESIGN_BENCH_METRICS: readonly string[] = DESIGN_METRICS.map((metric) => `design.${metric}`);

/** The metrics a bench row carries, in report order: stage 7's summary metrics (owned by @xsb/metrics), the rubric's, then design. */
export const BENCH_METRICS: readonly string[] = [
  ...SUMMARY_METRICS,
  ...RUBRIC_METRICS,
  ...DESIGN_BENCH_METRICS,
];

export function isRubricMetric(metric: string): boolean {
  return metric === 'rubric_total' || metric.startsWith('rubric.');
}

export function isDesignMetric(metric: string): boolean {
  return metric.startsWith('design.');
}

/** A metric of the deck itself, the same for every audience: the rubric's and design's (paired by case). */
export function isDeckMetric(metric: string): boolean {
  return isRubricMetric(metric) || isDesignMetric(metric);
}

/** A row's value of a metric, or null (error row, not scored, no rubric instance, design not measured). */
export function metricValue(row: BenchRow, metric: string): number | null {
  if (row.error !== null) return null;
  if (metric === 'rubric_total') return row.rubric?.error === null ? (row.rubric?.total ?? null) : null;
  if (metric.startsWith('rubric.')) {
    if (!row.rubric || row.rubric.error !== null) return null;
    return row.rubric.dimensions[metric.slice('rubric.'.length)] ?? null;
  }
  if (isDesignMetric(metric)) {
    const value = (row.design as Record<string, unknown> | null)?.[metric.slice('design.'.length)];
    return typeof value === 'number' ? value : null;
  }
  const metrics = row.metrics as Record<string, unknown> | null;
  const value = metrics?.[metric];
  return typeof value === 'number' ? value : null;
}
