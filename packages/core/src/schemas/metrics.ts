import { z } from 'zod';
import type { KnownFields } from './known-fields';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** What kind of judge stands behind a number. */
export const JUDGE_KINDS = ['offline', 'model', 'replay', 'record'] as const;

const judgeDescriptorSchema = z.looseObject({
  stage: z.string().min(1),
  id: z.string().min(1),
  kind: z.enum(JUDGE_KINDS),
  model: z.string().min(1).optional(),
  replay_store: z.string().min(1).optional(),
  model_label: z.string().min(1).optional(),
});
export type JudgeDescriptor = KnownFields<z.infer<typeof judgeDescriptorSchema>>;
export type JudgeKind = JudgeDescriptor['kind'];
/** A list of {@link JudgeDescriptor}s, deduplicated, for every format that records its judges. */
export const judgeDescriptorsSchema = z.array(judgeDescriptorSchema);

/** `metrics.json` (stage 6) and the compact aggregate input; null values are never 0 or NaN. */
export const metricsSchema = z.looseObject({
  audience: z.string().min(1),
  tau_a: finite,
  included_probe_count: z.number().int().min(0),
  available_utility: finite,
  recovered_utility: finite,
  coverage: finite.nullable(),
  coverage_null_reason: z.string().optional(),
  efficiency_time: finite.nullable(),
  efficiency_slide: finite.nullable(),
  efficiency_word: finite.nullable().optional(),
  correctness: finite.nullable().optional(),
  correctness_null_reason: z.string().optional(),
  safe_efficiency_time: finite.nullable().optional(),
  /** Stage 6 records them from the evaluation's manifest and inputs. */
  judges: judgeDescriptorsSchema.optional(),
});
export type Metrics = KnownFields<z.infer<typeof metricsSchema>>;
