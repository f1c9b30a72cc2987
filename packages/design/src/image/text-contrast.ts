import { backgroundColor, channelDistance, type Rgb, SAME_COLOR_TOLERANCE } from './background-color';
import { clipBox, type PixelBox, type RgbImage } from './rgb-image';
import { srgbToLinear } from './srgb-to-linear';

/** WCAG 2 relative luminance of an sRGB colour (0 black, 1 white). */
export function relativeLuminance(rgb: Rgb): number {
  return 0.2126 * srgbToLinear(rgb[0]) + 0.7152 * srgbToLinear(rgb[1]) + 0.0722 * srgbToLinear(rgb[2]);
}

/** WCAG 2 contrast ratio, 1 to 21: (L_lighter + 0.05) / (L_darker + 0.05). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [la, lb] = [relativeLuminance(a), relativeLuminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export interface TextContrast {
  ratio: number;
  text: Rgb;
  background: Rgb;
}

/**
 * The contrast of the text drawn inside a box. The background is the box's most frequent colour; the text
 * colour is the mean of the "ink" pixels (those off the background) at or beyond the 75th percentile of their
 * distance from it: the glyphs' cores, not their anti-aliased edges. A box with no ink at all holds text
 * drawn in its background's colour (or none drawn): ratio 1.
 */
export function textContrast(image: RgbImage, box: PixelBox): TextContrast {
  const background = backgroundColor(image, box);
  const [x0, y0, x1, y1] = clipBox(image, box);
  const { data, width } = image;
  // Distances are 0–255: a histogram finds the percentile in two passes without storing the pixels.
  const histogram = new Uint32Array(256);
  let inkCount = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const distance = channelDistance(data, (y * width + x) * 3, background);
      if (distance <= SAME_COLOR_TOLERANCE) continue;
      histogram[Math.min(255, Math.floor(distance))]! += 1;
      inkCount += 1;
    }
  if (inkCount === 0) return { ratio: 1, text: background, background };
  let cutoff = 255;
  for (let bin = 0, below = 0; bin < 256; bin++) {
    below += histogram[bin]!;
    if (below > 0.75 * (inkCount - 1)) {
      cutoff = bin;
      break;
    }
  }
  const sum: Rgb = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * width + x) * 3;
      const distance = channelDistance(data, i, background);
      if (distance <= SAME_COLOR_TOLERANCE || Math.floor(distance) < cutoff) continue;
      sum[0] += data[i]!;
      sum[1] += data[i + 1]!;
      sum[2] += data[i + 2]!;
      n += 1;
    }
  const text: Rgb = [sum[0] / n, sum[1] / n, sum[2] / n];
  return { ratio: contrastRatio(text, background), text, background };
}
