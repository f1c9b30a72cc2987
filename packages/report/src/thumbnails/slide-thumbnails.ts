import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, isXsbError, UsageError, writeFileAtomic } from '@xsb/core';
import { detectDeckFormat, renderDeck, type SlideRenderStore } from '@xsb/decks';
import sharp from 'sharp';
import { type BatchConvertOptions, convertPptxBatch } from './convert-pptx-batch';
import { removeScratchDir, scratchDir } from './scratch-dir';

export const THUMBNAIL_SIZES = ['off', 'small', 'large'] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

export function parseThumbnailSize(value: string | undefined, flag = '--thumbnails'): ThumbnailSize {
  const size = value ?? 'small';
  if (!(THUMBNAIL_SIZES as readonly string[]).includes(size))
    throw new UsageError(`${flag} must be one of ${THUMBNAIL_SIZES.join(', ')}, got ${JSON.stringify(size)}`);
  return size as ThumbnailSize;
}

/** Width in pixels and WebP quality of each size; `small` keeps 20 decks × 15 slides well under 15 MB. */
type ThumbnailFormat = { width: number; quality: number };
export const THUMBNAIL_FORMATS: Record<Exclude<ThumbnailSize, 'off'>, ThumbnailFormat> = {
  small: { width: 320, quality: 70 },
  large: { width: 800, quality: 75 },
};

/** Rendered larger, then downscaled (crisper text); 1.5× took 68 ms a page, 1× 31 ms. */
const OVERSAMPLE = 1.25;
/** PPTX slides are 960 pt wide (16:9, 13.33 in) unless the deck says otherwise. */
const DEFAULT_SLIDE_WIDTH_PT = 960;

export interface ThumbnailRequest {
  /** The cache key: equal decks share thumbnails. */
  sha256: string;
  path: string;
  slideWidth?: number | null;
}

export interface DeckThumbnails {
  /** `data:image/webp;base64,…` per slide. */
  slides: string[];
  /** Why there are none (off, LibreOffice missing, render failure). */
  note: string | null;
  rendered: boolean;
}

export interface ThumbnailOptions extends BatchConvertOptions {
  size: ThumbnailSize;
  cacheDir: string;
  /** Pages already rendered by another stage (a run's `slide_renders/`): read instead of rendering again. */
  renderStore?: SlideRenderStore;
}

/** One cache file per deck and size: a single atomic write (one fsync) instead of one per slide. */
type CacheEntry = ThumbnailFormat & { slides: string[] };

const toDataUri = (base64: string) => `data:image/webp;base64,${base64}`;

async function readCached(file: string, format: ThumbnailFormat): Promise<string[] | null> {
  if (!existsSync(file)) return null;
  try {
    const entry = JSON.parse(await readFile(file, 'utf8')) as CacheEntry;
    if (entry.width !== format.width || entry.quality !== format.quality || !Array.isArray(entry.slides))
      return null;
    return entry.slides.map(toDataUri);
  } catch {
    return null; // a damaged cache entry is rendered again
  }
}

/** Downscales rendered pages to the size's WebP and caches them as one entry. */
async function writeThumbnails(
  pages: readonly Buffer[],
  file: string,
  format: ThumbnailFormat,
): Promise<string[]> {
  const slides: string[] = [];
  for (const page of pages) {
    const webp = await sharp(page)
      .resize({ width: format.width })
      .webp({ quality: format.quality })
      .toBuffer();
    slides.push(webp.toString('base64'));
  }
  const entry: CacheEntry = { width: format.width, quality: format.quality, slides };
  await writeFileAtomic(file, `${JSON.stringify(entry)}\n`);
  return slides.map(toDataUri);
}

async function renderThumbnails(
  pdfPath: string,
  file: string,
  format: ThumbnailFormat,
  slideWidth: number,
): Promise<string[]> {
  const work = await scratchDir('xsb-report-render-');
  try {
    const scale = Math.min(3, Math.max(0.2, (format.width * OVERSAMPLE) / slideWidth));
    const pngs = await renderDeck(pdfPath, { outDir: work, scale });
    return await writeThumbnails(await Promise.all(pngs.map((png) => readFile(png))), file, format);
  } finally {
    await removeScratchDir(work);
  }
}

/** Thumbnails from pages another stage already rendered at least this wide (the design metrics' renders), or null. */
async function fromStoredRenders(
  store: SlideRenderStore | undefined,
  sha256: string,
  file: string,
  format: ThumbnailFormat,
): Promise<string[] | null> {
  if (!store) return null;
  const width = (await store.widths(sha256)).find((stored) => stored >= format.width);
  const pages = width === undefined ? null : await store.pages(sha256, width);
  if (!pages) return null;
  return writeThumbnails(await Promise.all(pages.map((page) => readFile(page))), file, format);
}

export const noThumbnails = (note: string): DeckThumbnails => ({ slides: [], note, rendered: false });

const failed = (error: unknown) =>
  noThumbnails(`no thumbnails: ${isXsbError(error) ? error.message : describeError(error)}`);

/** Never throws for a deck: one that cannot be rendered (or a missing LibreOffice) gets a note. */
export async function prepareThumbnails(
  requests: readonly ThumbnailRequest[],
  options: ThumbnailOptions,
): Promise<Map<string, DeckThumbnails>> {
  const result = new Map<string, DeckThumbnails>();
  const unique = [...new Map(requests.map((request) => [request.sha256, request])).values()];
  if (options.size === 'off') {
    for (const request of unique)
      result.set(request.sha256, noThumbnails('thumbnails off (--thumbnails off)'));
    return result;
  }
  const format = THUMBNAIL_FORMATS[options.size];
  const fileOf = (sha: string) => join(options.cacheDir, 'thumbnails', sha, `${options.size}.json`);
  // Converted PDFs stay in a temp folder: LibreOffice stamps each one with its creation time, so
  // keeping them would make two identical runs differ; the thumbnails themselves are reproducible.
  const work = await scratchDir('xsb-report-pdf-');
  const pdfOf = (sha: string) => join(work, `${sha}.pdf`);
  try {
    const pending: Array<ThumbnailRequest & { pdf: string }> = [];
    const toConvert: ThumbnailRequest[] = [];
    for (const request of unique) {
      const cached = await readCached(fileOf(request.sha256), format);
      if (cached) {
        result.set(request.sha256, { slides: cached, note: null, rendered: false });
        continue;
      }
      try {
        const shared = await fromStoredRenders(
          options.renderStore,
          request.sha256,
          fileOf(request.sha256),
          format,
        );
        if (shared) {
          result.set(request.sha256, { slides: shared, note: null, rendered: true });
          continue;
        }
      } catch {
        // unreadable stored pages: rendered below as if there were none
      }
      try {
        const deckFormat = detectDeckFormat((await readFile(request.path)).subarray(0, 1024), request.path);
        if (deckFormat === 'pdf') pending.push({ ...request, pdf: request.path });
        else toConvert.push(request);
      } catch (error) {
        result.set(request.sha256, failed(error));
      }
    }
    const conversion =
      toConvert.length === 0
        ? Promise.resolve(new Map<string, Error | null>())
        : convertPptxBatch(
            toConvert.map((request) => ({ input: request.path, output: pdfOf(request.sha256) })),
            options,
          ).catch((error: unknown) => new Map(toConvert.map((request) => [request.path, error as Error])));
    const render = async (request: ThumbnailRequest & { pdf: string }) => {
      try {
        const slides = await renderThumbnails(
          request.pdf,
          fileOf(request.sha256),
          format,
          request.slideWidth || DEFAULT_SLIDE_WIDTH_PT,
        );
        result.set(request.sha256, { slides, note: null, rendered: true });
      } catch (error) {
        result.set(request.sha256, failed(error));
      }
    };
    for (const request of pending) await render(request);
    const converted = await conversion;
    for (const request of toConvert) {
      const error = converted.get(request.path);
      if (error) result.set(request.sha256, failed(error));
      else await render({ ...request, pdf: pdfOf(request.sha256) });
    }
  } finally {
    await removeScratchDir(work);
  }
  return result;
}
