import { z } from 'zod';

/** The five PresentBench instance categories (spec 001, table 2). */
export const RUBRIC_CATEGORIES = ['academia', 'advertising', 'economics', 'education', 'talk'] as const;
export const rubricCategorySchema = z.enum(RUBRIC_CATEGORIES);
export type RubricCategory = z.infer<typeof rubricCategorySchema>;

/**
 * The five scoring dimensions, in PresentBench order: material-independent classes 1–2, then
 * material-dependent classes 1–3 (fidelity is the per-slide class 3).
 */
export const RUBRIC_DIMENSIONS = [
  'fundamentals',
  'design',
  'completeness',
  'correctness',
  'fidelity',
] as const;
export const rubricDimensionSchema = z.enum(RUBRIC_DIMENSIONS);
export type RubricDimension = z.infer<typeof rubricDimensionSchema>;

/** A checklist item decided by a built-in deterministic check instead of a judge call. */
export const rubricCheckItemSchema = z.object({
  check: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
  /** The PresentBench callable this item was decoded from, e.g. `utils.count_pages.check_slide_count`. */
  source: z.string().optional(),
});

/** A judge question (markdown, asked after the tier's prefix) or a deterministic check. */
export const rubricChecklistItemSchema = z.union([z.string().min(1), rubricCheckItemSchema]);
export type RubricChecklistItem = z.infer<typeof rubricChecklistItemSchema>;

const classWeight = z.number().min(0);

/** PresentBench `judge_weights.yaml`: class weights per tier and an optional overall maximum. */
export const rubricClassWeightsSchema = z.object({
  material_independent: z.record(z.string(), classWeight),
  material_dependent: z.record(z.string(), classWeight),
  total: z.number().positive().optional(),
});
export type RubricClassWeights = z.infer<typeof rubricClassWeightsSchema>;

/**
 * One rubric instance as xsb stores it (`instance.yaml` or `.json`). Material paths and
 * `instruction_file` are relative to the instance file. `fidelity` is either the explicit per-slide
 * list (slide i = entry i) or a template whose `{slide}` is replaced by 1..slide_range.max.
 */
export const rubricInstanceFileSchema = z
  .object({
    id: z.string().min(1),
    category: rubricCategorySchema,
    language: z.string().min(2),
    materials: z.array(z.string().min(1)).min(1),
    instruction: z.string().min(1).optional(),
    instruction_file: z.string().min(1).optional(),
    slide_range: z
      .object({ min: z.number().int().min(1), max: z.number().int().min(1) })
      .refine((range) => range.min <= range.max, { message: 'min must not exceed max' }),
    prefixes: z.object({
      material_independent: z.string().min(1),
      material_dependent: z.string().min(1),
    }),
    checklists: z.object({
      fundamentals: z.array(rubricChecklistItemSchema),
      design: z.array(rubricChecklistItemSchema),
      completeness: z.array(rubricChecklistItemSchema),
      correctness: z.array(rubricChecklistItemSchema),
      fidelity: z.union([z.object({ template: z.string().min(1) }), z.array(z.string().min(1))]),
    }),
    weights: rubricClassWeightsSchema.optional(),
    /** The instruction demands a source attribution on every slide (enables that layout check). */
    require_source_attribution: z.boolean().default(false),
  })
  .refine((file) => (file.instruction === undefined) !== (file.instruction_file === undefined), {
    message: 'give exactly one of instruction or instruction_file',
  });
