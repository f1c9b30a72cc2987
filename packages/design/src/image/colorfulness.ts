import { assertRgbImage, type RgbImage } from './rgb-image';

/**
 * Hasler & Süsstrunk (2003), "Measuring colourfulness in natural images": on 0–255 RGB, rg = R − G and
 * yb = (R + G)/2 − B; C = √(σ²rg + σ²yb) + 0.3·√(μ²rg + μ²yb), σ and μ over every pixel of the page.
 * A grey page scores 0; their scale calls ~15 slightly, ~33 moderately and ~59 quite colourful.
 */
export function colorfulness(image: RgbImage): number {
  assertRgbImage(image);
  const { data } = image;
  const n = data.length / 3;
  let sumRg = 0;
  let sumYb = 0;
  let sumRg2 = 0;
  let sumYb2 = 0;
  for (let i = 0; i < data.length; i += 3) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const rg = r - g;
    const yb = (r + g) / 2 - data[i + 2]!;
    sumRg += rg;
    sumYb += yb;
    sumRg2 += rg * rg;
    sumYb2 += yb * yb;
  }
  const meanRg = sumRg / n;
  const meanYb = sumYb / n;
  const varRg = Math.max(0, sumRg2 / n - meanRg * meanRg);
  const varYb = Math.max(0, sumYb2 / n - meanYb * meanYb);
  return Math.sqrt(varRg + varYb) + 0.3 * Math.sqrt(meanRg * meanRg + meanYb * meanYb);
}
