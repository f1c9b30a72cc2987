import { z } from 'zod';

const label = z.string().regex(/^[A-Z]$/, 'must be one capital letter');

/** One deck of a study case as annotators see it: its blinded label and its slide images (relative to the study). */
export const studyDeckSchema = z.strictObject({
  label,
  slides: z.array(z.string().min(1)),
});

/** One case of a study: what annotators are told (audience, scene) and the decks under blinded labels. */
export const studyCaseSchema = z.strictObject({
  case: z.string().min(1),
  scene: z.string().min(1),
  audience: z.string().min(1),
  decks: z.array(studyDeckSchema).min(2),
});
export type StudyCase = z.infer<typeof studyCaseSchema>;

/** `STUDY/study.json`: the cases annotators rank; no system name, file name or path of the data. */
export const studyRecordSchema = z.strictObject({
  study: z.string().min(1),
  created_at: z.string().min(1),
  task: z.string().min(1),
  sample: z.strictObject({
    requested: z.number().int().min(1),
    seed: z.number().int(),
    strata: z.enum(['scene', 'category']),
  }),
  cases: z.array(studyCaseSchema),
});
export type StudyRecord = z.infer<typeof studyRecordSchema>;

/** `STUDY/key.json`: per case, label → system id; never shown to annotators. */
export const studyKeySchema = z.strictObject({
  data_run: z.string().min(1),
  systems: z.array(z.string().min(1)).min(2),
  cases: z.record(z.string(), z.record(label, z.string().min(1))),
  /** Sampled cases left out, with why (a system had no deck of it). */
  skipped: z.array(z.strictObject({ case: z.string(), reason: z.string() })),
});
export type StudyKey = z.infer<typeof studyKeySchema>;
