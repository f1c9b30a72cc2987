import { z } from 'zod';

/**
 * One checklist item as PresentBench's judge.py stores it: `{answer, explanation}` when answered,
 * `{answer: null, explanation, log}` when not (its resume judges such items again).
 */
export const presentBenchItemSchema = z.object({
  answer: z.string().nullable(),
  explanation: z.string().nullable(),
  log: z.string().optional(),
});

const itemKey = z.string().regex(/^\d+\.\d+$/);
const classItems = z.record(z.string().regex(/^\d+$/), z.record(itemKey, presentBenchItemSchema));

/**
 * `<model>_<YYYY-MM-DD_HH-MM-SS>.yaml`: a judge result in PresentBench's layout (written by xsb as
 * YAML 1.1, which PyYAML reads; shown here as JSON).
 */
export const presentBenchResultFileSchema = z.object({
  material_independent: classItems,
  material_dependent: classItems,
});
export type PresentBenchResultFile = z.infer<typeof presentBenchResultFileSchema>;

const percent = z.number();
const count = z.number().int().min(0);
const sectionTree = z.object({
  weighted_arithmetic_mean_percent: percent,
  yes_count: count,
  valid_count: count,
  weight_percent: percent,
  classes: z.record(
    z.string(),
    z.object({ weight_percent: percent, score_percent: percent, yes_count: count, valid_count: count }),
  ),
});

/** `<same stem>_score.yaml`: the tree PresentBench's scoring.py (main) writes, both sections inside `total`. */
export const presentBenchScoreFileSchema = z.object({
  total: z.object({
    weighted_arithmetic_mean_percent: percent,
    yes_count: count,
    valid_count: count,
    leave_one_out_analysis: z.record(z.string(), z.object({ weighted_arithmetic_mean_percent: percent })),
    material_independent: sectionTree,
    material_dependent: sectionTree,
  }),
});
