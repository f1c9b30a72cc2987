import { SUMMARY_METRICS } from '@xsb/metrics';
import { RUBRIC_DIMENSIONS } from '@xsb/rubric';
import type { BenchRow } from './schemas/bench-row';

/** The rubric metrics: the paper total and its five dimensions (0..100). */
const RUBRIC_METRICS = ['rubric_total', ...RUBRIC_DIMENSIONS.map((d) => `rubric.${d}`)];

/** The metrics a bench row carries, in report order: stage 7's summary metrics (owned by @xsb/metrics), then the rubric's. */
export const BENCH_METRICS: readonly string[] = [...SUMMARY_METRICS, ...RUBRIC_METRICS];

export function isRubricMetric(metric: string): boolean {
  return metric === 'rubric_total' || metric.startsWith('rubric.');
}

/** A row's value of a metric, or null (error row, not scored, no rubric instance). */
export function metricValue(row: BenchRow, metric: string): number | null {
  if (row.error !== null) return null;
  if (metric === 'rubric_total') return row.rubric?.error === null ? (row.rubric?.total ?? null) : null;
  if (metric.startsWith('rubric.')) {
    if (!row.rubric || row.rubric.error !== null) return null;
    return row.rubric.dimensions[metric.slice('rubric.'.length)] ?? null;
  }
  const metrics = row.metrics as Record<string, unknown> | null;
  const value = metrics?.[metric];
  return typeof value === 'number' ? value : null;
}
