import { backgroundColor, channelDistance, type Rgb, SAME_COLOR_TOLERANCE } from './background-color';
import { assertRgbImage, type RgbImage } from './rgb-image';

/** Share (0–1) of the page's pixels within `SAME_COLOR_TOLERANCE` of its background colour. */
export function whitespace(image: RgbImage, background: Rgb = backgroundColor(image)): number {
  assertRgbImage(image);
  const { data } = image;
  let blank = 0;
  for (let i = 0; i < data.length; i += 3)
    if (channelDistance(data, i, background) <= SAME_COLOR_TOLERANCE) blank += 1;
  return blank / (data.length / 3);
}
