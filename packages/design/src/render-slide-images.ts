import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createScratchDir, removeScratchDir } from '@xsb/core';
import { renderDeck } from '@xsb/decks';
import sharp from 'sharp';
import type { RgbImage } from './image/rgb-image';

export interface RenderSlidesOptions {
  /** Page width in pixels every slide is measured at, whatever the deck's page size. Default 960. */
  widthPx?: number;
  /** Writes the exact images measured as `slide-<n>.png` (1-based) into this folder. */
  keepRendersDir?: string;
  /** `soffice` for PPTX decks (default `$XSB_SOFFICE`, else found on PATH). */
  soffice?: string;
  env?: Record<string, string | undefined>;
}

export const DEFAULT_RENDER_WIDTH_PX = 960;
/** PPTX slides are 960 pt wide (16:9) unless the deck says otherwise. */
const DEFAULT_SLIDE_WIDTH_PT = 960;

/**
 * Renders every slide once (PPTX through LibreOffice to PDF, then pdf.js) at `widthPx` wide and decodes it
 * to RGB, transparent areas on white as a projector shows them.
 */
export async function renderSlideImages(
  deckPath: string,
  slideWidthPt: number | null,
  options: RenderSlidesOptions = {},
): Promise<RgbImage[]> {
  const widthPx = options.widthPx ?? DEFAULT_RENDER_WIDTH_PX;
  const work = await createScratchDir('xsb-design-');
  try {
    const pngs = await renderDeck(deckPath, {
      outDir: work,
      scale: widthPx / (slideWidthPt || DEFAULT_SLIDE_WIDTH_PT),
      ...(options.soffice ? { soffice: options.soffice } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    if (options.keepRendersDir) await mkdir(options.keepRendersDir, { recursive: true });
    const images: RgbImage[] = [];
    for (const [i, png] of pngs.entries()) {
      // pdf.js rounds the page size: resized to exactly `widthPx` so every deck is measured at one scale.
      const page = sharp(await readFile(png)).flatten({ background: '#ffffff' });
      const { width = widthPx } = await page.metadata();
      const exact = width === widthPx ? page : page.resize({ width: widthPx });
      const { data, info } = await exact.raw().toBuffer({ resolveWithObject: true });
      images.push({
        width: info.width,
        height: info.height,
        data: new Uint8Array(data.buffer, data.byteOffset, data.length),
      });
      if (options.keepRendersDir)
        await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
          .png()
          .toFile(join(options.keepRendersDir, `slide-${i + 1}.png`));
    }
    return images;
  } finally {
    await removeScratchDir(work);
  }
}
