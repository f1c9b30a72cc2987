import { type Deck, type DeckStats, deckStatsSchema, writeFileAtomic, writeJson } from '@xsb/core';
import { formatDeckText } from './deck-text';

/** The `deck_stats.json` record of spec 000 for a parsed deck whose visible text lives at `extractedTextPath`. */
export function deckStatsFor(deck: Deck, extractedTextPath: string): DeckStats {
  return deckStatsSchema.parse({
    deck_path: deck.deck_path,
    slide_count: deck.slide_count,
    visible_word_count: deck.visible_word_count,
    extracted_text_path: extractedTextPath,
    parser: deck.parser,
    warnings: deck.warnings,
  });
}

export interface DeckStatsFiles {
  statsFile: string;
  textFile: string;
}

/** Writes the extracted visible text, then `deck_stats.json` pointing at it; both atomically. */
export async function writeDeckStats(deck: Deck, files: DeckStatsFiles): Promise<DeckStats> {
  await writeFileAtomic(files.textFile, formatDeckText(deck));
  const stats = deckStatsFor(deck, files.textFile);
  await writeJson(files.statsFile, deckStatsSchema, stats);
  return stats;
}
