import { z } from 'zod';

/** Which kind of case a split row covers: a source case, a rubric instance, or both under one id. */
export const benchCaseKindSchema = z.enum(['source', 'rubric', 'both']);
export type BenchCaseKind = z.infer<typeof benchCaseKindSchema>;

export const benchSplitNameSchema = z.enum(['dev', 'test']);
export type BenchSplitName = z.infer<typeof benchSplitNameSchema>;

/**
 * A line of `<data>/bench/splits.jsonl`: the split a case was given, once. The stratum it was balanced
 * in (`<scene>×<language>` for source cases, `<domain>×<language>` for rubric instances) and when.
 * Rows are never rewritten; new cases only append.
 */
export const benchSplitRowSchema = z.looseObject({
  case: z.string().min(1),
  kind: benchCaseKindSchema,
  split: benchSplitNameSchema,
  stratum: z.string().min(1),
  assigned_at: z.string().min(1),
});
export type BenchSplitRow = z.infer<typeof benchSplitRowSchema>;
