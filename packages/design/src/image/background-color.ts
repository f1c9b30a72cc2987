import { clipBox, type PixelBox, type RgbImage } from './rgb-image';

export type Rgb = [number, number, number];

/** Two colours within this many levels on every channel count as the same (JPEG-free renders, anti-aliasing aside). */
export const SAME_COLOR_TOLERANCE = 16;

/**
 * The background of a region: the most frequent colour, quantised to 16 levels per channel (4,096 bins),
 * then the mean of the pixels in that bin. The whole page when no box is given.
 */
export function backgroundColor(image: RgbImage, box?: PixelBox): Rgb {
  const [x0, y0, x1, y1] = box ? clipBox(image, box) : [0, 0, image.width, image.height];
  const counts = new Uint32Array(4096);
  const sums = new Float64Array(4096 * 3);
  const { data, width } = image;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * width + x) * 3;
      const bin = ((data[i]! >> 4) << 8) | ((data[i + 1]! >> 4) << 4) | (data[i + 2]! >> 4);
      counts[bin]! += 1;
      sums[bin * 3]! += data[i]!;
      sums[bin * 3 + 1]! += data[i + 1]!;
      sums[bin * 3 + 2]! += data[i + 2]!;
    }
  let best = 0;
  for (let bin = 1; bin < 4096; bin++) if (counts[bin]! > counts[best]!) best = bin;
  const n = counts[best]!;
  if (n === 0) return [255, 255, 255];
  return [sums[best * 3]! / n, sums[best * 3 + 1]! / n, sums[best * 3 + 2]! / n];
}

/** The largest per-channel difference between a pixel and a colour, 0–255. */
export function channelDistance(data: Uint8Array, i: number, color: Rgb): number {
  return Math.max(
    Math.abs(data[i]! - color[0]),
    Math.abs(data[i + 1]! - color[1]),
    Math.abs(data[i + 2]! - color[2]),
  );
}
