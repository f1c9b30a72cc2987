import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/**
 * `metrics.json` (stage 6), also the compact aggregate input `metrics/<system>/<audience>/<case>.json`.
 * `coverage` is null (never 0 or NaN) when no probe reaches tau_a; `coverage_null_reason` says why.
 * `correctness` and `safe_efficiency_time` are null when correctness was not scored.
 */
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
  safe_efficiency_time: finite.nullable().optional(),
});
export type Metrics = z.infer<typeof metricsSchema>;
