import { type Deck, describeError, hashFile } from '@xsb/core';
import { readDeck, type SlideRenderStore } from '@xsb/decks';
import type { ReportOptions } from '../report-options';
import {
  type DeckThumbnails,
  noThumbnails,
  prepareThumbnails,
  THUMBNAIL_FORMATS,
} from '../thumbnails/slide-thumbnails';

export interface LoadedDeck {
  path: string;
  sha256: string | null;
  deck: Deck | null;
  problem: string | null;
  thumbnails: DeckThumbnails;
}

export interface ThumbnailCounts {
  decks: number;
  rendered: number;
  cached: number;
  without: number;
}

/** Reads and hashes every deck once and gets its thumbnails; a deck that cannot be read keeps its place. */
export async function loadDecks(
  paths: readonly string[],
  options: ReportOptions,
  cacheDir: string,
  renderStore?: SlideRenderStore,
): Promise<{ decks: Map<string, LoadedDeck>; counts: ThumbnailCounts; width: number }> {
  const size = options.thumbnails ?? 'small';
  const loaded = new Map<string, Omit<LoadedDeck, 'thumbnails'>>();
  for (const path of [...new Set(paths)]) {
    try {
      const [sha256, deck] = await Promise.all([hashFile(path), readDeck(path)]);
      loaded.set(path, { path, sha256, deck, problem: null });
    } catch (error) {
      loaded.set(path, {
        path,
        sha256: null,
        deck: null,
        problem: `cannot read the deck: ${describeError(error)}`,
      });
    }
  }
  const requests = [...loaded.values()].flatMap((entry) =>
    entry.sha256
      ? [{ sha256: entry.sha256, path: entry.path, slideWidth: entry.deck?.slide_width ?? null }]
      : [],
  );
  const thumbnails = await prepareThumbnails(requests, {
    size,
    cacheDir: options.cacheDir ?? cacheDir,
    ...(renderStore ? { renderStore } : {}),
    ...(options.soffice ? { soffice: options.soffice } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const decks = new Map<string, LoadedDeck>();
  const counts: ThumbnailCounts = { decks: loaded.size, rendered: 0, cached: 0, without: 0 };
  const seen = new Set<string>();
  for (const entry of loaded.values()) {
    const thumbs =
      (entry.sha256 && thumbnails.get(entry.sha256)) || noThumbnails(entry.problem ?? 'no thumbnails');
    decks.set(entry.path, { ...entry, thumbnails: thumbs });
    if (entry.sha256 && seen.has(entry.sha256)) continue;
    if (entry.sha256) seen.add(entry.sha256);
    if (thumbs.slides.length === 0) counts.without += 1;
    else if (thumbs.rendered) counts.rendered += 1;
    else counts.cached += 1;
  }
  return { decks, counts, width: THUMBNAIL_FORMATS[size === 'off' ? 'small' : size].width };
}
