import { z } from 'zod';

/** The kinds of controlled damage `xsb meta perturb` applies to a deck (issue 12). */
export const PERTURBATION_KINDS = [
  'drop_slides',
  'shuffle_slides',
  'corrupt_numbers',
  'swap_facts',
  'inject_claims',
  'remove_citations',
  'shrink_fonts',
  'overflow_text',
  'pad_words',
  'duplicate_slides',
] as const;
export const perturbationKindSchema = z.enum(PERTURBATION_KINDS);
export type PerturbationKind = z.infer<typeof perturbationKindSchema>;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** One exact change; `slide` is 1-based in the original deck, `font_size` in points, `bbox` in EMU. */
const perturbationChangeSchema = z.looseObject({
  slide: z.number().int().min(1),
  field: z.enum(['text', 'slide', 'position', 'font_size', 'bbox']),
  old: z.string(),
  new: z.string(),
  fabricated: z.boolean().optional(),
  detail: z.string().optional(),
});
export type PerturbationChange = z.infer<typeof perturbationChangeSchema>;

/**
 * One line of `perturbations.jsonl`: a perturbed deck (or why none), its changes and expected effects. No
 * timestamps, so the same deck, kinds, severities and seed give byte-identical lines and decks.
 */
export const perturbationRecordSchema = z.looseObject({
  /** The original deck's file name without extension. */
  deck: z.string().min(1),
  /** The original deck, relative to the perturbation folder. */
  original: z.string().min(1),
  original_sha256: sha256,
  format: z.enum(['pptx', 'pdf']),
  kind: perturbationKindSchema,
  /** Share of the eligible units changed, in (0, 1]; at least one unit is always changed. */
  severity: z.number().gt(0).max(1),
  seed: z.number().int(),
  /** The perturbed deck, relative to the perturbation folder; null when skipped. */
  output: z.string().min(1).nullable(),
  output_sha256: sha256.nullable(),
  slide_count_before: z.number().int().min(0),
  slide_count_after: z.number().int().min(0).nullable(),
  /** Units this kind could change (content slides, numbers, terms, runs, boxes …) and how many it did. */
  eligible_units: z.number().int().min(0),
  changed_units: z.number().int().min(0),
  changes: z.array(perturbationChangeSchema),
  expected: z.looseObject({ lower: z.array(z.string().min(1)), unchanged: z.array(z.string().min(1)) }),
  /** Set when this kind does not apply to the deck (no deck written), with the reason. */
  skipped: z.string().min(1).optional(),
  /** Set when the written deck did not read back as intended (it was deleted): a failed row. */
  error: z.string().min(1).optional(),
});
export type PerturbationRecord = z.infer<typeof perturbationRecordSchema>;
