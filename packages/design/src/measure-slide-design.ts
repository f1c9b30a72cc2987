import { quantileSorted } from '@xsb/stats';
import { backgroundColor } from './image/background-color';
import { balance } from './image/balance';
import { colorfulness } from './image/colorfulness';
import { hueHarmony } from './image/hue-harmony';
import type { PixelBox, RgbImage } from './image/rgb-image';
import { subbandEntropy } from './image/subband-entropy';
import { textContrast } from './image/text-contrast';
import { whitespace } from './image/whitespace';
import type { SlideDesign } from './schemas/design-record';

/** Every design metric of one rendered slide; `textBoxes` are its text elements' boxes in the image's pixels. */
export function measureSlideDesign(
  image: RgbImage,
  textBoxes: readonly PixelBox[],
  index: number,
): SlideDesign {
  const background = backgroundColor(image);
  const ratios = textBoxes
    .filter((box) => box.width >= 1 && box.height >= 1)
    .map((box) => textContrast(image, box).ratio)
    .sort((a, b) => a - b);
  const harmony = hueHarmony(image);
  return {
    index,
    colorfulness: colorfulness(image),
    contrast_min: ratios.length > 0 ? ratios[0]! : null,
    contrast_median: ratios.length > 0 ? quantileSorted(ratios, 0.5) : null,
    contrast_below_4_5: ratios.filter((ratio) => ratio < 4.5).length,
    contrast_below_3: ratios.filter((ratio) => ratio < 3).length,
    text_elements: ratios.length,
    harmony: harmony.distance,
    harmony_template: harmony.template,
    complexity: subbandEntropy(image),
    whitespace: whitespace(image, background),
    balance: balance(image, background),
  };
}
