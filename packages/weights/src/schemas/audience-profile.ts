import { z } from 'zod';

const snapLevel = z.union([z.literal(0), z.literal(0.3), z.literal(0.6), z.literal(1)]);

/** How the offline `lexical` judge weighs probes for one audience. */
export const lexicalPreferencesSchema = z.object({
  /** Starting utility for probe levels 1, 2 and 3. */
  levels: z.tuple([snapLevel, snapLevel, snapLevel]),
  /** A theme matching one of these moves the utility one level up; an avoided theme one level down. */
  preferredThemes: z.array(z.string().min(1)).default([]),
  avoidedThemes: z.array(z.string().min(1)).default([]),
  /** A modality in this list moves the utility one level up. */
  preferredModalities: z.array(z.string().min(1)).default([]),
});
export type LexicalPreferences = z.infer<typeof lexicalPreferencesSchema>;

export const audienceProfileSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'use letters, digits, "_" or "-" (it becomes a file name)'),
  /** Who the audience is and what they need: the utility judge reads it verbatim. */
  description: z.string().min(20),
  lexical: lexicalPreferencesSchema.optional(),
});
export type AudienceProfile = z.infer<typeof audienceProfileSchema>;

/** A user's audience profiles file (`xsb weights --audiences FILE`, JSON or YAML): a list, or `{audiences: [...]}`. */
export const audienceProfilesFileSchema = z.union([
  z.array(audienceProfileSchema),
  z.object({ audiences: z.array(audienceProfileSchema) }),
]);
