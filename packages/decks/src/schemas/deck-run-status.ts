import { z } from 'zod';

export const deckRowOutcomeSchema = z.enum(['done', 'skipped', 'failed']);

/** `deck_status.json` in a deck folder: how the last run-sheet row for that deck ended. */
export const deckRowStatusSchema = z.looseObject({
  system: z.string().min(1),
  condition: z.string().min(1),
  audience: z.string().min(1),
  case_label: z.string().min(1),
  status: deckRowOutcomeSchema,
  output_deck_path: z.string(),
  /** Why the row failed or was skipped; empty when done. */
  message: z.string().default(''),
  line: z.number().int().min(1).optional(),
});
export type DeckRowStatus = z.infer<typeof deckRowStatusSchema>;

/** `batch_summary.json`: counts and per-row outcomes of one run-sheet batch (deterministic order). */
export const deckBatchSummarySchema = z.looseObject({
  /** The run sheet: relative to the data folder when it lies inside it, else as it was given. */
  run_sheet: z.string(),
  rows_total: z.number().int().min(0),
  /** Rows this batch handled: those its filters and shard selected, plus every invalid row (reported as failed). */
  rows_selected: z.number().int().min(0),
  done: z.number().int().min(0),
  skipped: z.number().int().min(0),
  failed: z.number().int().min(0),
  shard: z.string().nullable(),
  rows: z.array(deckRowStatusSchema),
});
export type DeckBatchSummary = z.infer<typeof deckBatchSummarySchema>;
