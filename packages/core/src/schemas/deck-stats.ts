import { z } from 'zod';

/** `deck_stats.json`: what evaluation knows of a deck, pointing at its extracted visible text (spec 000). */
export const deckStatsSchema = z.looseObject({
  deck_path: z.string().min(1),
  slide_count: z.number().int().min(0),
  visible_word_count: z.number().int().min(0),
  extracted_text_path: z.string().min(1),
  parser: z.string().min(1),
  warnings: z.array(z.string()),
});
export type DeckStats = z.infer<typeof deckStatsSchema>;
