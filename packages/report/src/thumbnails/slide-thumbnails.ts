import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError, isXsbError, writeFileAtomic } from '@xsb/core';
import { detectDeckFormat, renderDeck } from '@xsb/decks';
import sharp from 'sharp';
import { type BatchConvertOptions, convertPptxBatch } from './convert-pptx-batch';

export const THUMBNAIL_SIZES = ['off', 'small', 'large'] as const;
export type ThumbnailSize = (typeof THUMBNAIL_SIZES)[number];

/** Width in pixels and WebP quality of each size; `small` keeps 20 decks × 15 slides well under 15 MB. */
export const THUMBNAIL_FORMATS: Record<Exclude<ThumbnailSize, 'off'>, { width: number; quality: number }> = {
  small: { width: 320, quality: 70 },
  large: { width: 800, quality: 75 },
};

/** Render at this multiple of the thumbnail width, then downscale with sharp (crisper text). */
const OVERSAMPLE = 1.5;
/** PPTX slides are 960 pt wide (16:9, 13.33 in) unless the deck says otherwise. */
const DEFAULT_SLIDE_WIDTH_PT = 960;

export interface ThumbnailRequest {
  /** sha256 of the deck's bytes: the cache key (equal decks share thumbnails). */
  sha256: string;
  path: string;
  /** Slide width in points from the parsed deck, when known. */
  slideWidth?: number | null;
}

export interface DeckThumbnails {
  /** `data:image/webp;base64,…` per slide, in slide order; empty when there are none. */
  slides: string[];
  /** Why there are no thumbnails (off, LibreOffice missing, render failure); null when there are. */
  note: string | null;
  /** Rendered in this build (false: read from the cache). */
  rendered: boolean;
}

export interface ThumbnailOptions extends BatchConvertOptions {
  size: ThumbnailSize;
  /** Cache folder (e.g. `runs/<run>/report_cache`); thumbnails live under `thumbnails/<sha256>/<size>/`. */
  cacheDir: string;
}

interface CacheIndex {
  slide_count: number;
  width: number;
  quality: number;
}

const slideFile = (dir: string, index: number) =>
  join(dir, `slide-${String(index + 1).padStart(3, '0')}.webp`);

async function readCached(dir: string, format: { width: number; quality: number }): Promise<string[] | null> {
  const indexFile = join(dir, 'index.json');
  if (!existsSync(indexFile)) return null;
  try {
    const index = JSON.parse(await readFile(indexFile, 'utf8')) as CacheIndex;
    if (index.width !== format.width || index.quality !== format.quality) return null;
    const slides: string[] = [];
    for (let i = 0; i < index.slide_count; i++)
      slides.push(`data:image/webp;base64,${(await readFile(slideFile(dir, i))).toString('base64')}`);
    return slides;
  } catch {
    return null; // a damaged cache entry is rendered again
  }
}

async function renderThumbnails(
  pdfPath: string,
  dir: string,
  format: { width: number; quality: number },
  slideWidth: number,
): Promise<string[]> {
  const work = await mkdtemp(join(tmpdir(), 'xsb-report-render-'));
  try {
    const scale = Math.min(3, Math.max(0.2, (format.width * OVERSAMPLE) / slideWidth));
    const pngs = await renderDeck(pdfPath, { outDir: work, scale });
    const slides: string[] = [];
    for (const [index, png] of pngs.entries()) {
      const webp = await sharp(await readFile(png))
        .resize({ width: format.width, withoutEnlargement: false })
        .webp({ quality: format.quality })
        .toBuffer();
      await writeFileAtomic(slideFile(dir, index), webp);
      slides.push(`data:image/webp;base64,${webp.toString('base64')}`);
    }
    const index: CacheIndex = { slide_count: slides.length, width: format.width, quality: format.quality };
    await writeFileAtomic(join(dir, 'index.json'), `${JSON.stringify(index)}\n`);
    return slides;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const failureNote = (error: unknown) =>
  `no thumbnails: ${isXsbError(error) ? error.message : describeError(error)}`;

/**
 * Slide thumbnails for every requested deck, rendered through `@xsb/decks` (`renderDeck`: PDF pages with
 * pdf-to-img, PPTX first to PDF through LibreOffice) and resized to WebP with sharp, cached on disk by
 * deck sha256 and size so a rebuild renders nothing. Never throws for a deck: a missing LibreOffice or
 * a deck that cannot be rendered gives that deck a note instead of thumbnails.
 */
export async function prepareThumbnails(
  requests: readonly ThumbnailRequest[],
  options: ThumbnailOptions,
): Promise<Map<string, DeckThumbnails>> {
  const result = new Map<string, DeckThumbnails>();
  const unique = [...new Map(requests.map((request) => [request.sha256, request])).values()];
  if (options.size === 'off') {
    for (const request of unique)
      result.set(request.sha256, { slides: [], note: 'thumbnails off (--thumbnails off)', rendered: false });
    return result;
  }
  const format = THUMBNAIL_FORMATS[options.size];
  const dirOf = (sha: string) => join(options.cacheDir, 'thumbnails', sha, options.size);
  // Converted PDFs stay in a temp folder: LibreOffice stamps each one with its creation time, so
  // keeping them would make two identical runs differ; the thumbnails themselves are reproducible.
  const work = await mkdtemp(join(tmpdir(), 'xsb-report-pdf-'));
  const pdfOf = (sha: string) => join(work, `${sha}.pdf`);
  try {
    const pending: Array<ThumbnailRequest & { pdf: string }> = [];
    const toConvert: ThumbnailRequest[] = [];
    for (const request of unique) {
      const cached = await readCached(dirOf(request.sha256), format);
      if (cached) {
        result.set(request.sha256, { slides: cached, note: null, rendered: false });
        continue;
      }
      try {
        const deckFormat = detectDeckFormat((await readFile(request.path)).subarray(0, 1024), request.path);
        if (deckFormat === 'pdf') pending.push({ ...request, pdf: request.path });
        else toConvert.push(request);
      } catch (error) {
        result.set(request.sha256, { slides: [], note: failureNote(error), rendered: false });
      }
    }
    if (toConvert.length > 0) {
      try {
        const converted = await convertPptxBatch(
          toConvert.map((request) => ({ input: request.path, output: pdfOf(request.sha256) })),
          options,
        );
        for (const request of toConvert) {
          const error = converted.get(request.path);
          if (error) result.set(request.sha256, { slides: [], note: failureNote(error), rendered: false });
          else pending.push({ ...request, pdf: pdfOf(request.sha256) });
        }
      } catch (error) {
        for (const request of toConvert)
          result.set(request.sha256, { slides: [], note: failureNote(error), rendered: false });
      }
    }
    for (const request of pending) {
      try {
        const slides = await renderThumbnails(
          request.pdf,
          dirOf(request.sha256),
          format,
          request.slideWidth || DEFAULT_SLIDE_WIDTH_PT,
        );
        result.set(request.sha256, { slides, note: null, rendered: true });
      } catch (error) {
        result.set(request.sha256, { slides: [], note: failureNote(error), rendered: false });
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return result;
}
