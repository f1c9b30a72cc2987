import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { hashFile, readJson, writeJson } from '@xsb/core';
import { designInputHash, measureDeckDesign } from './measure-deck-design';
import { DEFAULT_RENDER_WIDTH_PX, type RenderSlidesOptions } from './render-slide-images';
import { type DesignRecord, designRecordSchema } from './schemas/design-record';

/** Where a deck's design metrics are cached: beside it, like the rubric's and the holistic judge's results. */
export const deckDesignCacheFile = (deckFile: string): string => `${deckFile}.xsb_design.json`;

/**
 * A deck's design metrics, measured once per deck bytes, render width and metrics version and cached beside
 * the deck (`<deck>.xsb_design.json`, its `deck_file` the deck's name), so the design stage, the bench and the
 * meta-evaluation measure a deck once between them. A cache whose input hash differs is measured again.
 */
export async function cachedDeckDesign(
  deckFile: string,
  options: Omit<RenderSlidesOptions, 'keepRendersDir'> & {
    /** Measure (and render) again even when the cache is current. */
    force?: boolean;
  } = {},
): Promise<DesignRecord> {
  const cache = deckDesignCacheFile(deckFile);
  const expected = designInputHash(await hashFile(deckFile), options.widthPx ?? DEFAULT_RENDER_WIDTH_PX);
  const cached = existsSync(cache)
    ? await readJson(cache, designRecordSchema).catch(() => undefined)
    : undefined;
  if (cached?.input_hash === expected && !options.force) return cached;
  const { force, ...render } = options;
  const measured = await measureDeckDesign(deckFile, force ? { ...render, rerender: true } : render);
  return writeJson(cache, designRecordSchema, { ...measured, deck_file: basename(deckFile) });
}
