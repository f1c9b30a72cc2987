import { z } from 'zod';
import { rubricCategorySchema, rubricDimensionSchema } from './rubric-instance';

/**
 * `not_applicable` is PresentBench's third answer; `error` is a judge answer that stayed unparseable
 * after retries; `not_judged` is an LLM item under an offline judge (never scored as "no").
 */
export const RUBRIC_VERDICTS = ['yes', 'no', 'not_applicable', 'error', 'not_judged'] as const;
export const rubricVerdictSchema = z.enum(RUBRIC_VERDICTS);
export type RubricVerdict = z.infer<typeof rubricVerdictSchema>;

export const rubricSectionSchema = z.enum(['material_independent', 'material_dependent']);
export type RubricSection = z.infer<typeof rubricSectionSchema>;

/** One deterministic layout check over a parsed deck; `passed: null` = undecidable (no geometry). */
export const layoutCheckResultSchema = z.object({
  id: z.string().min(1),
  passed: z.boolean().nullable(),
  slides: z.array(z.number().int().min(1)),
  detail: z.string(),
  findings: z.array(z.object({ slide: z.number().int().min(1), detail: z.string() })),
});
export type LayoutCheckResult = z.infer<typeof layoutCheckResultSchema>;

export const rubricItemResultSchema = z.object({
  /** PresentBench item key `<class>.<n>`, e.g. `2.11`. */
  key: z.string().regex(/^\d+\.\d+$/),
  section: rubricSectionSchema,
  class_id: z.string().regex(/^\d+$/),
  dimension: rubricDimensionSchema,
  kind: z.enum(['llm', 'check']),
  verdict: rubricVerdictSchema,
  /** The text inside `\boxed{}` (or the check's answer) before normalisation. */
  raw_answer: z.string().nullable(),
  explanation: z.string().nullable(),
  cited_slides: z.array(z.number().int().min(1)),
  attempts: z.number().int().min(0),
  check_id: z.string().optional(),
  /** A deterministic check run beside (or instead of) this LLM item. */
  layout_check: layoutCheckResultSchema.optional(),
  /** `layout_check` decided the verdict (stand-in mode `replace`). */
  decided_by_check: z.boolean().optional(),
});
export type RubricItemResult = z.infer<typeof rubricItemResultSchema>;

export const rubricUsageSchema = z.object({
  calls: z.number().int().min(0),
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  cache_read_tokens: z.number().int().min(0),
  cache_write_tokens: z.number().int().min(0),
});
export type RubricUsage = z.infer<typeof rubricUsageSchema>;

/** `rubric_evaluation.json`: every verdict for one deck against one instance (scores derive from it). */
export const rubricEvaluationSchema = z.object({
  instance_id: z.string().min(1),
  category: rubricCategorySchema,
  deck_path: z.string().min(1),
  judge: z.string().min(1),
  /** Hash of instance + deck + judge settings; a re-run with the same hash does no work. */
  input_hash: z.string().min(1),
  slide_count: z.number().int().min(0),
  judged_slide_count: z.number().int().min(0),
  truncated: z.boolean(),
  items: z.array(rubricItemResultSchema),
  layout_checks: z.array(layoutCheckResultSchema),
  usage: rubricUsageSchema,
});
export type RubricEvaluation = z.infer<typeof rubricEvaluationSchema>;

export const rubricRunRowSchema = z.object({
  instance_id: z.string().min(1),
  /** Null when the instance could not be read far enough to know it. */
  category: rubricCategorySchema.nullable(),
  deck_path: z.string().nullable(),
  status: z.enum(['evaluated', 'skipped', 'failed', 'missing_deck']),
  error: z.string().nullable(),
  paper_total_percent: z.number().nullable(),
  presentbench_total_percent: z.number().nullable(),
  error_count: z.number().int().min(0),
  not_judged_count: z.number().int().min(0),
});
export type RubricRunRow = z.infer<typeof rubricRunRowSchema>;

const categoryMeanSchema = z.object({
  count: z.number().int().min(0),
  paper_mean_percent: z.number().nullable(),
  presentbench_mean_percent: z.number().nullable(),
});

/** `xsb_rubric_summary_<judge>.json`: one row per instance and the per-category means. */
export const rubricRunSummarySchema = z.object({
  judge: z.string().min(1),
  rows: z.array(rubricRunRowSchema),
  overall: categoryMeanSchema,
  categories: z.record(z.string(), categoryMeanSchema),
});
export type RubricRunSummary = z.infer<typeof rubricRunSummarySchema>;
