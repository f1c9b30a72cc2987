import { backgroundColor, channelDistance, type Rgb, SAME_COLOR_TOLERANCE } from './background-color';
import { assertRgbImage, type RgbImage } from './rgb-image';

/**
 * How far the visual centre of mass sits from the page's centre: 0 centred, 1 in a corner. Each pixel
 * that differs from the background weighs its difference (0–1); the offset is the distance of the weighted
 * centroid from the centre, each axis scaled by half the page, divided by √2. An empty page is centred (0).
 */
export function balance(image: RgbImage, background: Rgb = backgroundColor(image)): number {
  assertRgbImage(image);
  const { data, width, height } = image;
  let mass = 0;
  let sumX = 0;
  let sumY = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const distance = channelDistance(data, (y * width + x) * 3, background);
      if (distance <= SAME_COLOR_TOLERANCE) continue;
      const weight = distance / 255;
      mass += weight;
      sumX += weight * (x + 0.5);
      sumY += weight * (y + 0.5);
    }
  if (mass === 0) return 0;
  const dx = (sumX / mass - width / 2) / (width / 2);
  const dy = (sumY / mass - height / 2) / (height / 2);
  return Math.min(1, Math.hypot(dx, dy) / Math.SQRT2);
}
