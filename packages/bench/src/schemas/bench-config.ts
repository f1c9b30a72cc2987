import { z } from 'zod';

const positiveInt = z.number().int().min(1);

/**
 * Overrides of the evaluation settings a bench configuration may set (`bench.yaml`). Strict: an unknown
 * key is refused by name, so a typo never runs as the default.
 */
export const benchEvaluationOverridesSchema = z.strictObject({
  /** Judge of every judged step: `lexical`, `replay:<store>` or `record:<store>`. */
  judge: z.string().min(1).optional(),
  /** Probes per answerability call (spec 000: 12). */
  batch_size: positiveInt.optional(),
  /** `text`: the deck's visible text (spec 000; an image-only deck is still judged from its slides); `image`: every deck from rendered slides. */
  judge_input: z.enum(['text', 'image']).optional(),
  /** Utility judgments per probe and audience (spec 000: 3). */
  weight_k: positiveInt.optional(),
  /** `on`: claim-level correctness; `off`: none (correctness and safe efficiency are null). */
  claims: z.enum(['on', 'off']).optional(),
  tau_a: z.number().min(0).max(1).optional(),
  image_mode_words_per_slide: z.number().min(0).optional(),
  claim_settings: z
    .strictObject({
      max_claims: positiveInt.optional(),
      snippets_per_claim: positiveInt.optional(),
      chunk_chars: positiveInt.optional(),
      verify_batch_size: positiveInt.optional(),
    })
    .optional(),
});
export type BenchEvaluationOverrides = z.infer<typeof benchEvaluationOverridesSchema>;

const configurationName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$/,
    'must be 1-64 letters, digits, "_", ".", "+" or "-", starting with a letter or digit',
  );

/** A binary factor: the overrides with it off and with it on (either may be empty). */
export const benchFactorSchema = z.strictObject({
  description: z.string().optional(),
  off: benchEvaluationOverridesSchema.default({}),
  on: benchEvaluationOverridesSchema,
});

/**
 * `bench.yaml` in the data folder: named configurations (sets of overrides) and binary factors, added
 * after the built-in ones, from which `ladder`, `loo` and `factorial` configuration sets are generated.
 */
export const benchConfigFileSchema = z.strictObject({
  configurations: z.record(configurationName, benchEvaluationOverridesSchema).default({}),
  factors: z
    .record(
      z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be 1-32 lowercase letters, digits or "_"'),
      benchFactorSchema,
    )
    .default({}),
});
export type BenchConfigFile = z.infer<typeof benchConfigFileSchema>;
