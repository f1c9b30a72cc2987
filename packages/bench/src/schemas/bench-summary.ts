import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const value = finite.nullable();

/** One metric over a set of rows: mean, 95% cluster-bootstrap interval (cluster = case), n rows, n cases. */
export const benchStatSchema = z.looseObject({
  mean: value,
  ci_low: value,
  ci_high: value,
  n: z.number().int().min(0),
  n_cases: z.number().int().min(0),
});
export type BenchStat = z.infer<typeof benchStatSchema>;

const metricStats = z.record(z.string(), benchStatSchema);

const groupStats = z.looseObject({
  rows: z.number().int().min(0),
  failed_rows: z.number().int().min(0),
  overall: metricStats,
  by_audience: z.record(z.string(), metricStats),
  by_scene: z.record(z.string(), metricStats),
});

export const benchComparisonSchema = z.looseObject({
  kind: z.enum(['reference', 'condition', 'ladder', 'loo']),
  /** Side A and side B: the difference is B − A. */
  a: z.looseObject({ configuration: z.string().min(1), system_id: z.string().min(1) }),
  b: z.looseObject({ configuration: z.string().min(1), system_id: z.string().min(1) }),
  metric: z.string().min(1),
  n_cases: z.number().int().min(0),
  n_units: z.number().int().min(0),
  mean_diff: value,
  ci_low: value,
  ci_high: value,
  /** sd of the per-case mean difference (n − 1 in the denominator). */
  sd_case_diff: value,
  /** Minimum detectable effect at 80% power and α = 0.05 from `sd_case_diff`. */
  mde: value,
  /** Exact McNemar on paired binary units: b = A yes & B no, c = A no & B yes, two-sided p. */
  mcnemar: z.looseObject({ b: z.number().int().min(0), c: z.number().int().min(0), p: finite }).nullable(),
  /** Holm-adjusted McNemar p over every McNemar test of the run. */
  holm_p: value,
  verdict: z.enum(['real', 'indeterminate', 'no evidence']).nullable(),
  /** Fewer cases than `diag_below`: a diagnostic, not a result. */
  diag: z.boolean(),
  missing_cases: z.looseObject({ only_a: z.array(z.string()), only_b: z.array(z.string()) }),
  seed: z.number().int(),
});
export type BenchComparison = z.infer<typeof benchComparisonSchema>;

export const benchShapleySchema = z.looseObject({
  metric: z.string().min(1),
  /** What v(S) is: the mean of the metric over every row of configuration F:S without an error. */
  value_function: z.string().min(1),
  factors: z.array(z.looseObject({ factor: z.string().min(1), value: value, ci_low: value, ci_high: value })),
  /** v(S) per subset, so anyone can recompute the Shapley values. */
  subsets: z.array(
    z.looseObject({
      configuration: z.string().min(1),
      factors: z.array(z.string()),
      value: value,
      n: z.number().int().min(0),
    }),
  ),
});
export type BenchShapley = z.infer<typeof benchShapleySchema>;

/** A factor left out of a default factor set, and why (e.g. the run's judge cannot read images). */
export const benchLeftOutFactorSchema = z.looseObject({
  factor: z.string().min(1),
  reason: z.string().min(1),
});
export type BenchLeftOutFactor = z.infer<typeof benchLeftOutFactorSchema>;

/**
 * `summary.json` of a bench run: per configuration its factors, pooled and per-system statistics
 * (overall, by audience, by scene), every paired comparison, ladder steps, leave-one-out deltas and,
 * for a factorial, the Shapley values with the per-subset values they come from.
 */
export const benchSummarySchema = z.looseObject({
  run_id: z.string().min(1),
  split: z.enum(['dev', 'test', 'all']),
  metrics: z.array(z.string()),
  configurations: z.array(
    groupStats.extend({
      name: z.string().min(1),
      factors: z.record(z.string(), z.boolean()),
      settings_digest: z.string().min(1),
      systems: z.array(groupStats.extend({ system_id: z.string().min(1) })),
    }),
  ),
  comparisons: z.array(benchComparisonSchema),
  ladder: z.array(z.looseObject({ from: z.string(), to: z.string(), factor: z.string() })),
  leave_one_out: z.array(z.looseObject({ factor: z.string(), full: z.string(), without: z.string() })),
  shapley: benchShapleySchema.nullable(),
  /** Factors the default set left out (not run, so not in the ladder, leave-one-out or Shapley values). */
  left_out_factors: z.array(benchLeftOutFactorSchema).default([]),
  rows: z.looseObject({ total: z.number().int().min(0), failed: z.number().int().min(0) }),
  errors: z.array(
    z.looseObject({
      configuration: z.string(),
      system_id: z.string(),
      case: z.string(),
      audience: z.string(),
      error: z.string(),
    }),
  ),
});
export type BenchSummary = z.infer<typeof benchSummarySchema>;

const runSide = z.looseObject({
  run_id: z.string().min(1),
  pipeline_run: z.string().min(1),
  split: z.enum(['dev', 'test', 'all']),
  status: z.enum(['running', 'done', 'failed']),
  cases: z.number().int().min(0),
});

/** A judge as the cross-run comparison sees it: its id and, for a replay store, the model it stands for. */
const comparedJudge = z.looseObject({ id: z.string().min(1), model_label: z.string().nullable() });

/**
 * `xsb bench compare --run A --run B --json`: each (configuration, system) both runs have, B − A over
 * the cases both have, with the bench's paired statistics (Holm over this comparison's McNemar tests).
 * When a configuration's judges differ, the anchor set on which both passed (`anchor`); without one
 * the comparison is refused and nothing is computed.
 */
export const benchRunsComparisonSchema = z.looseObject({
  a: runSide,
  b: runSide,
  /** Per shared configuration: its judge in each run, and the other settings that differ. */
  configurations: z.array(
    z.looseObject({
      name: z.string().min(1),
      judge_a: comparedJudge,
      judge_b: comparedJudge,
      judges_differ: z.boolean(),
      settings_differ: z.array(z.string()),
    }),
  ),
  systems: z.array(z.string()),
  /** Inputs recorded in both runs under the same path whose content digest differs. */
  inputs_differ: z.looseObject({
    probe_banks: z.number().int().min(0),
    weights: z.number().int().min(0),
    decks: z.number().int().min(0),
    rubric_instances: z.number().int().min(0),
  }),
  min_kappa: finite,
  /** The anchor set both judges passed (null when no configuration's judges differ). */
  anchor: z
    .looseObject({
      anchor_set: z.string().min(1),
      data_dir: z.string().min(1),
      judges: z.array(
        z.looseObject({
          judge: z.string().min(1),
          froze: z.boolean(),
          kappa: value,
          n: z.number().int().min(0),
          rubric_items: z.number().int().min(0),
        }),
      ),
    })
    .nullable(),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
  }),
  comparisons: z.array(
    benchComparisonSchema.omit({ kind: true, a: true, b: true }).extend({
      configuration: z.string().min(1),
      system_id: z.string().min(1),
    }),
  ),
});
export type BenchRunsComparison = z.infer<typeof benchRunsComparisonSchema>;
