import { z } from 'zod';

export const conditionSchema = z.enum(['audience_agnostic', 'audience_conditioned']);
export type Condition = z.infer<typeof conditionSchema>;

/** One row of a run sheet CSV (stage 4): one deck to produce or import. */
export const runSheetRowSchema = z.looseObject({
  system: z.string().min(1),
  condition: conditionSchema,
  audience: z.string().min(1),
  case_label: z.string().min(1),
  source_document: z.string().min(1),
  prompt_path: z.string().default(''),
  output_deck_path: z.string().default(''),
});
export type RunSheetRow = z.infer<typeof runSheetRowSchema>;
