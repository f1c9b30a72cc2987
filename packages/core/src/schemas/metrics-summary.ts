import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** One metric of one (system_id, audience) group: mean, percentile-bootstrap interval and n. */
export const metricSummarySchema = z.looseObject({
  metric: z.string().min(1),
  n: z.number().int().min(0),
  /** Rows whose value was null (e.g. no included probe): excluded from n and the mean. */
  null_count: z.number().int().min(0),
  mean: finite.nullable(),
  ci_low: finite.nullable(),
  ci_high: finite.nullable(),
});
export type MetricSummary = z.infer<typeof metricSummarySchema>;

export const metricsGroupSummarySchema = z.looseObject({
  system_id: z.string().min(1),
  system: z.string().nullable(),
  condition: z.string().nullable(),
  audience: z.string().min(1),
  row_count: z.number().int().min(0),
  cases: z.array(z.string()),
  metrics: z.array(metricSummarySchema),
});
export type MetricsGroupSummary = z.infer<typeof metricsGroupSummarySchema>;

/**
 * `summary.json` (stage 7): every (system_id, audience) group with per-metric mean, bootstrap 95%
 * interval and n, plus the bootstrap settings that make the numbers reproducible.
 */
export const metricsSummarySchema = z.looseObject({
  stage: z.literal('aggregate'),
  xsb_version: z.string().min(1),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
    method: z.string().min(1),
  }),
  row_count: z.number().int().min(0),
  groups: z.array(metricsGroupSummarySchema),
  rows: z.array(
    z.looseObject({
      system_id: z.string().min(1),
      audience: z.string().min(1),
      case_label: z.string().min(1),
      origin: z.enum(['compact', 'evaluation']),
      file: z.string().min(1),
    }),
  ),
  skipped: z.array(z.looseObject({ file: z.string(), reason: z.string() })),
});
export type MetricsSummary = z.infer<typeof metricsSummarySchema>;
