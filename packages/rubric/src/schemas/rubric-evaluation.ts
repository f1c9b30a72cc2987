import { z } from 'zod';
import { rubricCategorySchema, rubricClassWeightsSchema, rubricDimensionSchema } from './rubric-instance';

/**
 * What an item's stored answer means for scoring. `yes` / `no`: the answer reads so (PresentBench:
 * `answer.strip().lower()`); `other`: an answer that reads neither (`maybe`, `not applicable` under the
 * default `strict` parser), stored as given and scored as not-yes, like PresentBench; `not_applicable`:
 * the `lenient` parser's third reading; `error`: no answer after every attempt (PresentBench stores
 * `answer: null`); `not_judged`: an LLM item under an offline judge (never scored as "no").
 */
export const RUBRIC_VERDICTS = ['yes', 'no', 'other', 'not_applicable', 'error', 'not_judged'] as const;
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
  /**
   * The answer as PresentBench's judge.py stores it (`strict`: the normalised boxed token, case kept,
   * e.g. `Yes`, `maybe`; `lenient`: `yes` / `no` / `not applicable`); null when unanswered. Files
   * written before this field existed derive it from `verdict`.
   */
  answer: z.string().nullable().optional(),
  /** Why an item stayed unanswered, worded as PresentBench's `log` (exported with `answer: null`). */
  log: z.string().optional(),
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

/**
 * How judge answers were read: `strict` is PresentBench main's judge.py (first `\boxed{}` if it reads
 * yes/no, else the last, stored as given; only an answer without any box is asked again); `lenient`
 * is xsb's older reading (last verdict box, markdown and `n/a` tolerated, corrective retries).
 */
export const RUBRIC_PARSERS = ['strict', 'lenient'] as const;
export const rubricParserSchema = z.enum(RUBRIC_PARSERS);
export type RubricParser = z.infer<typeof rubricParserSchema>;

/** Which deck the slide-count item counts: the truncated one (PresentBench) or the one delivered. */
export const rubricSlideCountBaseSchema = z.enum(['judged', 'delivered']);
export type RubricSlideCountBase = z.infer<typeof rubricSlideCountBaseSchema>;

/** `rubric_evaluation.json`: every verdict for one deck against one instance (scores derive from it). */
export const rubricEvaluationSchema = z.object({
  instance_id: z.string().min(1),
  category: rubricCategorySchema,
  deck_path: z.string().min(1),
  judge: z.string().min(1),
  /** Files written before the field existed were read by today's `lenient` parser. */
  parser: rubricParserSchema.default('lenient'),
  /** Files written before the field existed counted the delivered deck. */
  slide_count_on: rubricSlideCountBaseSchema.default('delivered'),
  /** The instance's class weights, so the evaluation can be scored without it (absent in older files). */
  weights: rubricClassWeightsSchema.optional(),
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
  /** The PresentBench result YAML written for this case (absent in older summaries). */
  presentbench_result: z.string().nullable().default(null),
  /** Its `_score.yaml`; null while an item is unanswered (judge.py's scoring would stop on it). */
  presentbench_score: z.string().nullable().default(null),
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
  /** The system the decks are from, as `xsb rubric run --system` names it (absent: reports use the folder). */
  system: z.string().min(1).optional(),
  /** The answer parser of every row (summaries written before the field existed: lenient). */
  parser: rubricParserSchema.default('lenient'),
  rows: z.array(rubricRunRowSchema),
  overall: categoryMeanSchema,
  categories: z.record(z.string(), categoryMeanSchema),
  /**
   * Only in a shard's summary (`xsb_rubric_summary_<judge>.shard-i-of-n.json`): which shard, and the
   * id of every instance of the run in order, so the shards' rows merge back into the unsharded order.
   */
  shard: z
    .object({
      index: z.number().int().min(0),
      count: z.number().int().min(1),
      instances: z.array(z.string()),
    })
    .optional(),
});
export type RubricRunSummary = z.infer<typeof rubricRunSummarySchema>;
