import { DESIGN_METRICS } from '@xsb/design';
import { RUBRIC_VERDICTS } from '@xsb/rubric';
import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const value = finite.nullable();

/** The X+Slides metrics of one row (stage 6 at the configuration's tau_a). */
export const benchRowMetricsSchema = z.looseObject({
  coverage: value,
  efficiency_time: value,
  efficiency_slide: value,
  efficiency_word: value,
  correctness: value,
  safe_efficiency_time: value,
  included_probe_count: z.number().int().min(0),
});

/** The rubric result of the row's deck against the case's rubric instance (paper scores, 0..100). */
export const benchRowRubricSchema = z.looseObject({
  instance: z.string().min(1),
  judge: z.string().min(1),
  total: value,
  dimensions: z.record(z.string(), value),
  items: z.record(z.string(), z.enum(RUBRIC_VERDICTS)),
  error: z.string().nullable().default(null),
});
export type BenchRowRubric = z.infer<typeof benchRowRubricSchema>;

/**
 * The design metrics of the row's deck (@xsb/design's deck means: computed from the rendered slides, no
 * judge), or the `error` that kept them from being measured (then every value is null).
 */
export const benchRowDesignSchema = z.looseObject({
  ...(Object.fromEntries(DESIGN_METRICS.map((metric) => [metric, value])) as Record<
    (typeof DESIGN_METRICS)[number],
    typeof value
  >),
  error: z.string().nullable(),
});
export type BenchRowDesign = z.infer<typeof benchRowDesignSchema>;

/**
 * A line of a bench run's `per_row.jsonl`: one (configuration, case, audience, system) evaluation with
 * its metrics, the included probes' coverage (the paired binary units of McNemar) and the rubric
 * result, or the `error` that failed it (then `metrics` and `units` are null).
 */
export const benchRowSchema = z.looseObject({
  configuration: z.string().min(1),
  case: z.string().min(1),
  audience: z.string().min(1),
  system_id: z.string().min(1),
  system: z.string().min(1),
  condition: z.string().min(1),
  split: z.enum(['dev', 'test']),
  scene: z.string().min(1),
  language: z.string().min(1),
  /** The deck, relative to the data folder (null when none was found). */
  deck: z.string().nullable(),
  metrics: benchRowMetricsSchema.nullable(),
  units: z.looseObject({ probes: z.record(z.string(), z.boolean()) }).nullable(),
  rubric: benchRowRubricSchema.nullable(),
  /** Present when the run measured design (`design: true`); null otherwise, and in runs made before it. */
  design: benchRowDesignSchema.nullable().default(null),
  /** The evaluation folder, relative to the data folder. */
  evaluation_dir: z.string().nullable(),
  error: z.string().nullable(),
});
export type BenchRow = z.infer<typeof benchRowSchema>;
