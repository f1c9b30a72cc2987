import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const share = z.object({
  n: z.number().int().min(0),
  k: z.number().int().min(0),
  share: finite.nullable(),
  ci_low: finite.nullable(),
  ci_high: finite.nullable(),
});
const meanInterval = z.object({
  n: z.number().int().min(0),
  mean: finite.nullable(),
  ci_low: finite.nullable(),
  ci_high: finite.nullable(),
});
const tolerance = z.object({ absolute: finite.min(0), relative: finite.min(0) });
const expectation = z.enum(['lower', 'unchanged', 'none']);
const mark = z.enum(['real', 'length_only', 'missed', 'not_applicable']);

/**
 * `meta/sensitivity.json`: per evaluator × kind (× severity) how often the score fell where it should
 * (sensitivity) and stayed where it should not move (specificity); n counts decks.
 */
export const metaSensitivitySchema = z.looseObject({
  judge: z.string().min(1),
  offline: z.boolean(),
  run: z.string().min(1),
  derived_run: z.string().min(1),
  original_decks: z.number().int().min(0),
  perturbed_decks: z.number().int().min(0),
  bootstrap: z.looseObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: finite,
  }),
  evaluators: z.array(
    z.looseObject({
      id: z.string().min(1),
      family: z.enum(['xslides', 'rubric', 'layout', 'holistic', 'design']),
      scale: z.string().min(1),
      tolerance,
      applicable: z.boolean(),
      reason: z.string().optional(),
    }),
  ),
  cells: z.array(
    z.looseObject({
      evaluator: z.string().min(1),
      kind: z.string().min(1),
      severity: finite,
      expected: expectation,
      n: z.number().int().min(0),
      missing: z.number().int().min(0),
      fell: share,
      stayed: share,
      mean_change: meanInterval,
    }),
  ),
  summary: z.array(
    z.looseObject({
      evaluator: z.string().min(1),
      kind: z.string().min(1),
      expected: expectation,
      sensitivity: share,
      specificity: share,
      graded_tau_b: finite.nullable(),
      graded_n: z.number().int().min(0),
      mark,
    }),
  ),
  length_controls: z.array(
    z.looseObject({
      evaluator: z.string().min(1),
      real_damage_sensitivity: finite.nullable(),
      pad_words_fall_share: finite.nullable(),
      duplicate_slides_fall_share: finite.nullable(),
      tracks_length: z.boolean(),
      note: z.string(),
    }),
  ),
  skipped: z.array(
    z.looseObject({ deck: z.string(), kind: z.string(), severity: finite, reason: z.string() }),
  ),
  failures: z.array(z.looseObject({ where: z.string(), error: z.string() })),
});
export type MetaSensitivity = z.infer<typeof metaSensitivitySchema>;

/** One line of `meta/scores.jsonl`: one evaluator's score of one deck; null with a `reason` when it does not apply. */
export const metaScoreRowSchema = z.looseObject({
  deck: z.string().min(1),
  original_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  variant: z.string().min(1),
  kind: z.string().nullable(),
  severity: finite.nullable(),
  evaluator: z.string().min(1),
  value: finite.nullable(),
  reason: z.string().optional(),
  judge: z.string().min(1),
});
export type MetaScoreRow = z.infer<typeof metaScoreRowSchema>;
