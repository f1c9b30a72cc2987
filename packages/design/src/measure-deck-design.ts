import { hashCanonicalJson, hashFile, type SlideElement } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { PixelBox } from './image/rgb-image';
import { measureSlideDesign } from './measure-slide-design';
import { DEFAULT_RENDER_WIDTH_PX, type RenderSlidesOptions, renderSlideImages } from './render-slide-images';
import type { DesignRecord } from './schemas/design-record';
import { summarizeDeckDesign } from './summarize-deck-design';

/** Bump when a metric's definition changes: every design.json is then recomputed, not reused. */
export const DESIGN_METRICS_VERSION = 1;

/** Text elements with visible words and a box, nested groups included. */
function textElements(elements: readonly SlideElement[]): SlideElement[] {
  return elements.flatMap((element) => [
    ...(element.kind === 'text' && element.bbox && element.text.trim() !== '' ? [element] : []),
    ...textElements(element.children ?? []),
  ]);
}

/** What decides a deck's design.json: its bytes, the render width and the metrics' version. */
export function designInputHash(deckSha256: string, widthPx = DEFAULT_RENDER_WIDTH_PX): string {
  return hashCanonicalJson({ deck: deckSha256, width_px: widthPx, version: DESIGN_METRICS_VERSION });
}

/**
 * Renders a PPTX or PDF deck and measures every slide: no judge, deterministic for the same deck, renderer
 * and width. Text boxes come from the deck's geometry (points), scaled to the rendered page.
 */
export async function measureDeckDesign(
  deckPath: string,
  options: RenderSlidesOptions = {},
): Promise<DesignRecord> {
  const widthPx = options.widthPx ?? DEFAULT_RENDER_WIDTH_PX;
  const deck = await readDeck(deckPath);
  const deckSha256 = await hashFile(deckPath);
  const images = await renderSlideImages(deckPath, deck.slide_width, options, deckSha256);
  const slides = images.map((image, i) => {
    const slideWidth = deck.slide_width || image.width;
    const slideHeight = deck.slide_height || (slideWidth * image.height) / image.width;
    const [sx, sy] = [image.width / slideWidth, image.height / slideHeight];
    const boxes: PixelBox[] = textElements(deck.slides[i]?.elements ?? []).map(({ bbox }) => ({
      x: bbox!.x * sx,
      y: bbox!.y * sy,
      width: bbox!.width * sx,
      height: bbox!.height * sy,
    }));
    return measureSlideDesign(image, boxes, i + 1);
  });
  return {
    deck_file: deckPath,
    deck_sha256: deckSha256,
    input_hash: designInputHash(deckSha256, widthPx),
    render: { width_px: widthPx, renderer: deck.format === 'pptx' ? 'libreoffice+pdf.js' : 'pdf.js' },
    slides,
    deck: summarizeDeckDesign(slides),
  };
}
