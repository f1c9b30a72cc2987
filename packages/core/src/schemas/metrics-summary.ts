import { z } from 'zod';
import { judgeDescriptorsSchema } from './metrics';

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
  /** Cases other systems of the same audience were scored on and this one was not (sorted). */
  missing_cases: z.array(z.string()),
  /** The tau_a values of the group's rows (one, unless rows were scored at different thresholds). */
  tau_a: z.array(finite),
  /** How many probes reached tau_a per deck: what each deck's coverage rests on. */
  included_probe_count: z.looseObject({ min: finite, median: finite, max: finite }).nullable(),
  /** The median deck rests on fewer than `thin_below` probes: too few to read much into. */
  thin: z.boolean(),
  judges: judgeDescriptorsSchema,
  offline_judges: z.boolean(),
  metrics: z.array(metricSummarySchema),
});
export type MetricsGroupSummary = z.infer<typeof metricsGroupSummarySchema>;

/** A job of the run without `metrics.json`; identity fields are null where the folder does not say. */
const missingJobSchema = z.looseObject({
  system: z.string().nullable(),
  condition: z.string().nullable(),
  audience: z.string().nullable(),
  case_label: z.string().nullable(),
  status: z.enum(['failed', 'not_run', 'incomplete', 'deleted', 'undiscoverable']),
  reason: z.string().min(1),
  /** The evaluation (or deck) folder, relative to the summary folder. */
  where: z.string().min(1),
});
export type MissingJob = z.infer<typeof missingJobSchema>;

/** `summary.json` (stage 7; docs/artifact-formats.md). */
export const metricsSummarySchema = z.looseObject({
  stage: z.literal('aggregate'),
  xsb_version: z.string().min(1),
  /** Every judge behind any row, deduplicated by (stage, id). */
  judges: judgeDescriptorsSchema,
  /** Rows that record no judge (compact files written by other tools or older versions). */
  rows_without_judges: z.number().int().min(0),
  offline_judges: z.boolean(),
  offline_warning: z.string().min(1).nullable(),
  /** The tau_a values of all rows, sorted (one unless rows were scored at different thresholds). */
  tau_a: z.array(finite),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
    method: z.string().min(1),
  }),
  /** A group whose median included-probe count is below this is `thin`. */
  thin_below: z.number().int().min(1),
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
  /** Jobs of the run without metrics; null when the summary was made from folders, not a run. */
  missing_jobs: z.array(missingJobSchema).nullable(),
  /** Why `missing_jobs` is null. */
  missing_jobs_note: z.string().min(1).optional(),
  /** Cases whose finished probe bank holds 0 probes; absent without a data folder to look in. */
  empty_probe_banks: z.array(z.string().min(1)).optional(),
  /** Cases whose template-phrased questions are not in the source's language; absent like the above. */
  probe_language_notes: z.array(z.string().min(1)).optional(),
  /**
   * Families of metrics other stages wrote into the evaluation folders (e.g. `design` from design.json), each
   * summarised in the groups under `<family>.<metric>`; absent when no folder had any.
   */
  metric_families: z
    .array(
      z.looseObject({
        family: z.string().min(1),
        file: z.string().min(1),
        description: z.string().min(1),
        metrics: z.array(z.string().min(1)),
        /** Rows whose folder had the file. */
        rows: z.number().int().min(0),
      }),
    )
    .optional(),
});
export type MetricsSummary = z.infer<typeof metricsSummarySchema>;
