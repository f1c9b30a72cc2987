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
  /** The evaluation folder, relative to the data folder. */
  evaluation_dir: z.string().nullable(),
  error: z.string().nullable(),
});
export type BenchRow = z.infer<typeof benchRowSchema>;
