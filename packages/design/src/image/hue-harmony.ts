import { assertRgbImage, type RgbImage } from './rgb-image';

/** Matsuda's hue templates as Cohen-Or et al. (2006) use them: sectors (centre, width in degrees) at α = 0. */
export const HARMONIC_TEMPLATES = {
  i: [[0, 18]],
  V: [[0, 93.6]],
  L: [
    [0, 18],
    [90, 79.2],
  ],
  I: [
    [0, 18],
    [180, 18],
  ],
  T: [[0, 180]],
  Y: [
    [0, 93.6],
    [180, 18],
  ],
  X: [
    [0, 93.6],
    [180, 93.6],
  ],
} as const satisfies Record<string, ReadonlyArray<readonly [number, number]>>;
export type HarmonicTemplate = keyof typeof HARMONIC_TEMPLATES | 'N';

/** Pixels greyer than this chroma (max − min of RGB, 0–1) have no hue worth counting. */
const MIN_CHROMA = 0.05;

export interface HueHarmony {
  /** Chroma-weighted mean arc distance (degrees, 0–180) of the page's hues to the nearest template's sectors. */
  distance: number;
  template: HarmonicTemplate;
  /** The template's rotation α in degrees. */
  rotation: number;
}

/** Hue histogram in 1° bins, each pixel weighted by its chroma (so near-greys, whose hue is noise, weigh ~0). */
function hueHistogram(image: RgbImage): Float64Array {
  const histogram = new Float64Array(360);
  const { data } = image;
  for (let i = 0; i < data.length; i += 3) {
    const r = data[i]! / 255;
    const g = data[i + 1]! / 255;
    const b = data[i + 2]! / 255;
    const max = Math.max(r, g, b);
    const chroma = max - Math.min(r, g, b);
    if (chroma < MIN_CHROMA) continue;
    let hue = max === r ? ((g - b) / chroma) % 6 : max === g ? (b - r) / chroma + 2 : (r - g) / chroma + 4;
    hue = (hue * 60 + 360) % 360;
    histogram[Math.floor(hue) % 360]! += chroma;
  }
  return histogram;
}

/** Distance of each 1° bin centre to the template's nearest sector, at α = 0. */
function sectorDistances(sectors: ReadonlyArray<readonly [number, number]>): Float64Array {
  const distances = new Float64Array(360);
  for (let bin = 0; bin < 360; bin++) {
    let best = Number.POSITIVE_INFINITY;
    for (const [centre, width] of sectors) {
      const raw = Math.abs(bin + 0.5 - centre) % 360;
      const arc = Math.min(raw, 360 - raw);
      best = Math.min(best, Math.max(0, arc - width / 2));
    }
    distances[bin] = best;
  }
  return distances;
}

const TEMPLATE_DISTANCES = Object.entries(HARMONIC_TEMPLATES).map(
  ([name, sectors]) => [name as HarmonicTemplate, sectorDistances(sectors)] as const,
);

/**
 * Colour harmony after Cohen-Or et al. (2006), "Color harmonization": F(X, T) = Σ_p ‖H(p) − E_T(p)‖·S(p),
 * minimised over the seven hue templates and their rotation (1° steps), here divided by the total weight so
 * it reads as a mean distance in degrees; chroma stands in for saturation. 0 is perfectly harmonic; a page
 * with no hue at all (N, greys only) is 0.
 */
export function hueHarmony(image: RgbImage): HueHarmony {
  assertRgbImage(image);
  const histogram = hueHistogram(image);
  const total = histogram.reduce((sum, weight) => sum + weight, 0);
  if (total < 1) return { distance: 0, template: 'N', rotation: 0 };
  let best: HueHarmony = { distance: Number.POSITIVE_INFINITY, template: 'N', rotation: 0 };
  for (const [template, distances] of TEMPLATE_DISTANCES)
    for (let rotation = 0; rotation < 360; rotation++) {
      let cost = 0;
      for (let bin = 0; bin < 360; bin++) {
        const weight = histogram[bin]!;
        if (weight !== 0) cost += weight * distances[(bin - rotation + 360) % 360]!;
      }
      if (cost / total < best.distance) best = { distance: cost / total, template, rotation };
    }
  return best;
}
