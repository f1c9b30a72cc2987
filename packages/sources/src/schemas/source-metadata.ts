import { metadataSchema } from '@xsb/core';
import { z } from 'zod';

export const sourceTypeSchema = z.enum(['pdf', 'html', 'markdown', 'text', 'docx', 'odt', 'pptx']);
export type SourceType = z.infer<typeof sourceTypeSchema>;

/** `source_metadata.json`, the source manifest of spec 000 (stored beside the source file). */
export const sourceMetadataSchema = z.looseObject({
  case_id: z.string().min(1),
  title: z.string(),
  source_path: z.string().min(1),
  source_type: sourceTypeSchema,
  scene: z.string().min(1),
  valid_audiences: z.array(z.string().min(1)),
  display_name: z.string().optional(),
  category: z.string().optional(),
  topic: z.string().optional(),
  /** ISO 639-1 code of the source's language (`en`, `de`, `fr`, …); absent means undetermined. */
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code: two lowercase letters, e.g. "en" or "de"')
    .optional(),
  metadata: metadataSchema.default({}),
});
export type SourceMetadata = z.infer<typeof sourceMetadataSchema>;

/** What a user may write: every field optional, since case discovery fills the rest from the folder. */
export const sourceMetadataInputSchema = sourceMetadataSchema.partial();
export type SourceMetadataInput = z.infer<typeof sourceMetadataInputSchema>;
