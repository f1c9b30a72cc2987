import { z } from 'zod';

/** `reference.json`: a deck scored against the human-made reference deck of its case. */
export const referenceRecordSchema = z
  .object({
    /** Both paths relative to the evaluation folder, so the data folder can move. */
    deck_file: z.string(),
    deck_sha256: z.string(),
    reference_file: z.string(),
    reference_sha256: z.string(),
    /** Hash of both decks' bytes and the metrics' version: the reuse key. */
    input_hash: z.string(),
    slide_count: z.number().int().min(0),
    reference_slide_count: z.number().int().min(0),
    /** Deck slides over reference slides. */
    slide_count_ratio: z.number().min(0).nullable(),
    /** The Hungarian assignment on ROUGE-L, pairs sharing at least one word; slides 1-based. */
    matches: z.array(
      z
        .object({
          slide: z.number().int().min(1),
          reference_slide: z.number().int().min(1),
          rouge_l: z.number(),
        })
        .strict(),
    ),
    /** Sum of the matched pairs' ROUGE-L F over the larger slide count: 1 only for the same text, slide for slide. */
    rouge_l: z.number().min(0).max(1),
    /** Kendall's tau-b between the deck order and the reference order of the matched slides; null under 2 matches. */
    order_tau: z.number().min(-1).max(1).nullable(),
    key_terms: z.array(z.string()),
    /** Share of the reference's key terms found anywhere in the deck; null when the reference has none. */
    key_term_recall: z.number().min(0).max(1).nullable(),
  })
  .strict();
export type ReferenceRecord = z.infer<typeof referenceRecordSchema>;
