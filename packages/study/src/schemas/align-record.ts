import { z } from 'zod';

const value = z.number().finite().nullable();

/** One evaluator's alignment with the annotators. */
export const alignEvaluatorRowSchema = z.strictObject({
  evaluator: z.string().min(1),
  /** xslides, rubric, layout or design. */
  family: z.string().min(1),
  /** The judge behind the scores (null for rules and measurements). */
  judge: z.string().nullable(),
  /** The scores come from an offline judge: a smoke test, not a ranking of judges. */
  offline: z.boolean(),
  spearman: value,
  ci_low: value,
  ci_high: value,
  n_cases: z.number().int().min(0),
  /** Cases where the evaluator scored every deck alike (ρ counted 0). */
  constant_cases: z.array(z.string()),
});
export type AlignEvaluatorRow = z.infer<typeof alignEvaluatorRowSchema>;

/** `STUDY/align.json`: every evaluator measured against the study's annotators (`xsb study align`). */
export const alignRecordSchema = z.strictObject({
  study: z.string().min(1),
  data_run: z.string().min(1),
  annotators: z.array(z.string()),
  /** Cases with at least one answer. */
  answered_cases: z.number().int().min(0),
  bootstrap: z.strictObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: z.number(),
  }),
  evaluators: z.array(alignEvaluatorRowSchema),
  /** Each annotator against the mean rank of the others (cases with two or more annotators). */
  human_ceiling: z.strictObject({
    spearman: value,
    ci_low: value,
    ci_high: value,
    n_cases: z.number().int().min(0),
  }),
  /** Kendall's W among the annotators of each case, averaged over cases with two or more. */
  kendall_w: z.strictObject({ w: value, ci_low: value, ci_high: value, n_cases: z.number().int().min(0) }),
  /** PresentBench's Table 5: the rubric score from every non-empty subset of its dimensions. */
  ablation: z.array(
    z.strictObject({
      dimensions: z.array(z.string()),
      spearman: value,
      ci_low: value,
      ci_high: value,
      n_cases: z.number().int().min(0),
    }),
  ),
  /** The most aligned evaluator against each other one, paired over cases: B − A in ρ. */
  comparisons: z.array(
    z.strictObject({
      a: z.string(),
      b: z.string(),
      n_cases: z.number().int().min(0),
      mean_diff: value,
      ci_low: value,
      ci_high: value,
      verdict: z.enum(['real', 'indeterminate', 'no evidence']).nullable(),
    }),
  ),
  /** Decks or files whose scores could not be read, with why. */
  problems: z.array(z.string()),
});
export type AlignRecord = z.infer<typeof alignRecordSchema>;
