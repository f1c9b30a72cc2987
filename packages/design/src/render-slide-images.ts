import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createScratchDir, removeScratchDir } from '@xsb/core';
import { renderDeck, type SlideRenderStore } from '@xsb/decks';
import sharp from 'sharp';
import type { RgbImage } from './image/rgb-image';

export interface RenderSlidesOptions {
  /** Page width in pixels every slide is measured at, whatever the deck's page size. Default 960. */
  widthPx?: number;
  /** Writes the exact images measured as `slide-<n>.png` (1-based) into this folder. */
  keepRendersDir?: string;
  /**
   * Pages of this deck already rendered at this width are read from here, and pages rendered are kept here
   * (a run's `slide_renders/`, which the report's thumbnails read too): one render per deck and width.
   */
  renderStore?: SlideRenderStore;
  /** Render again even when the store holds the pages, and replace them. */
  rerender?: boolean;
  /** `soffice` for PPTX decks (default `$XSB_SOFFICE`, else found on PATH). */
  soffice?: string;
  env?: Record<string, string | undefined>;
}

export const DEFAULT_RENDER_WIDTH_PX = 960;
/** PPTX slides are 960 pt wide (16:9) unless the deck says otherwise. */
const DEFAULT_SLIDE_WIDTH_PT = 960;

/** PPTX through LibreOffice to PDF, then pdf.js: every page as PNG bytes, about `widthPx` wide. */
async function renderPages(
  deckPath: string,
  slideWidthPt: number | null,
  widthPx: number,
  options: RenderSlidesOptions,
): Promise<Buffer[]> {
  const work = await createScratchDir('xsb-design-');
  try {
    const pngs = await renderDeck(deckPath, {
      outDir: work,
      scale: widthPx / (slideWidthPt || DEFAULT_SLIDE_WIDTH_PT),
      ...(options.soffice ? { soffice: options.soffice } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    return await Promise.all(pngs.map((png) => readFile(png)));
  } finally {
    await removeScratchDir(work);
  }
}

/** A page decoded to RGB at exactly `widthPx`, transparent areas on white as a projector shows them. */
async function decodeExact(png: Buffer, widthPx: number): Promise<RgbImage> {
  const page = sharp(png).flatten({ background: '#ffffff' });
  const { width = widthPx } = await page.metadata();
  // pdf.js rounds the page size: resized to exactly `widthPx` so every deck is measured at one scale.
  const exact = width === widthPx ? page : page.resize({ width: widthPx });
  const { data, info } = await exact.raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
  };
}

const encodePng = (image: RgbImage) =>
  sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .png()
    .toBuffer();

/**
 * Every slide of a deck at `widthPx` wide as RGB, rendered once: from the render store when it holds this
 * deck (by `deckSha256`) at this width, else rendered and, with a store, kept there as the exact images.
 */
export async function renderSlideImages(
  deckPath: string,
  slideWidthPt: number | null,
  options: RenderSlidesOptions = {},
  deckSha256?: string,
): Promise<RgbImage[]> {
  const widthPx = options.widthPx ?? DEFAULT_RENDER_WIDTH_PX;
  const store = deckSha256 ? options.renderStore : undefined;
  const stored = store && !options.rerender ? await store.pages(deckSha256!, widthPx) : null;
  const pages = stored
    ? await Promise.all(stored.map((file) => readFile(file)))
    : await renderPages(deckPath, slideWidthPt, widthPx, options);
  const images: RgbImage[] = [];
  for (const page of pages) images.push(await decodeExact(page, widthPx));
  const needPngs = (store && !stored) || options.keepRendersDir;
  const exactPngs = needPngs ? await Promise.all(images.map(encodePng)) : [];
  if (store && !stored) await store.put(deckSha256!, widthPx, exactPngs);
  if (options.keepRendersDir) {
    await mkdir(options.keepRendersDir, { recursive: true });
    for (const [i, png] of exactPngs.entries())
      await writeFile(join(options.keepRendersDir, `slide-${i + 1}.png`), png);
  }
  return images;
}

/**
 * A deck's pages as PNG files at exactly `widthPx` in a render store, rendered (and stored) only when the store
 * lacks them: for whoever shows slides to people (a study page) with the pixels the design metrics measured.
 */
export async function storedSlidePages(
  deckPath: string,
  slideWidthPt: number | null,
  options: RenderSlidesOptions & { renderStore: SlideRenderStore },
  deckSha256: string,
): Promise<string[]> {
  const widthPx = options.widthPx ?? DEFAULT_RENDER_WIDTH_PX;
  const stored = await options.renderStore.pages(deckSha256, widthPx);
  if (stored) return stored;
  await renderSlideImages(deckPath, slideWidthPt, options, deckSha256);
  const pages = await options.renderStore.pages(deckSha256, widthPx);
  if (!pages) throw new Error(`the render store did not keep the pages of ${deckPath}`);
  return pages;
}
