import { assertRgbImage, type RgbImage } from './rgb-image';
import { srgbToLinear } from './srgb-to-linear';

/** Rosenholtz et al. weigh the luminance channel's entropy 0.84 and each chrominance channel's 0.08. */
const CHANNEL_WEIGHTS = [0.84, 0.08, 0.08] as const;
/** Wavelet levels: at 960 px wide the coarsest details are 8 px blocks, the scale of a text line. */
const LEVELS = 3;
/** Coefficients are binned 1 CIELAB unit wide: a flat page is 0 bits, and JPEG-free renders have no noise. */
const BIN_WIDTH = 1;

/** sRGB decoding of each 8-bit level, once: per pixel, `**2.4` dominated the page's cost. */
const LINEAR = Float64Array.from({ length: 256 }, (_, level) => srgbToLinear(level));
const labCurve = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);

/** One sRGB colour in CIELAB (D65). */
function toLab(r8: number, g8: number, b8: number): [number, number, number] {
  const [r, g, b] = [LINEAR[r8]!, LINEAR[g8]!, LINEAR[b8]!];
  const fx = labCurve((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const fy = labCurve(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const fz = labCurve((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/**
 * The page in CIELAB: three planes, cropped to a multiple of 2^LEVELS on each side. A slide holds few distinct
 * colours, so each is converted once (the cube roots were most of the page's cost).
 */
function labPlanes(image: RgbImage, width: number, height: number): Float64Array[] {
  const planes = [0, 1, 2].map(() => new Float64Array(width * height));
  const seen = new Map<number, [number, number, number]>();
  const { data } = image;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * image.width + x) * 3;
      const key = (data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!;
      let lab = seen.get(key);
      if (!lab) {
        lab = toLab(data[i]!, data[i + 1]!, data[i + 2]!);
        seen.set(key, lab);
      }
      const k = y * width + x;
      planes[0]![k] = lab[0];
      planes[1]![k] = lab[1];
      planes[2]![k] = lab[2];
    }
  return planes;
}

/** CIELAB values (L 0–100, a and b about ±128) give Haar details within ±1,024 units at three levels; room to spare. */
const HALF_BINS = 4096;
const bandCounts = [0, 1, 2].map(() => new Uint32Array(2 * HALF_BINS + 1));

const binOf = (value: number) =>
  Math.max(-HALF_BINS, Math.min(HALF_BINS, Math.round(value / BIN_WIDTH))) + HALF_BINS;

function entropyBits(counts: Uint32Array, total: number): number {
  let bits = 0;
  for (let bin = 0; bin < counts.length; bin++) {
    const count = counts[bin]!;
    if (count === 0) continue;
    const p = count / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Mean entropy of one plane's detail subbands (LH, HL, HH at each level) under the orthonormal Haar wavelet;
 * coefficients are counted into their bins as they are computed, never stored.
 */
function planeSubbandEntropy(plane: Float64Array, width: number): number {
  const [lh, hl, hh] = bandCounts as [Uint32Array, Uint32Array, Uint32Array];
  let approx = plane;
  let w = width;
  let sum = 0;
  for (let level = 0; level < LEVELS; level++) {
    const halfWidth = w / 2;
    const halfHeight = approx.length / w / 2;
    const next = new Float64Array(halfWidth * halfHeight);
    lh.fill(0);
    hl.fill(0);
    hh.fill(0);
    for (let y = 0; y < halfHeight; y++) {
      const top = 2 * y * w;
      const bottom = top + w;
      for (let x = 0; x < halfWidth; x++) {
        const a = approx[top + 2 * x]!;
        const b = approx[top + 2 * x + 1]!;
        const c = approx[bottom + 2 * x]!;
        const d = approx[bottom + 2 * x + 1]!;
        next[y * halfWidth + x] = (a + b + c + d) / 2;
        lh[binOf((a - b + c - d) / 2)]! += 1;
        hl[binOf((a + b - c - d) / 2)]! += 1;
        hh[binOf((a - b - c + d) / 2)]! += 1;
      }
    }
    const n = halfWidth * halfHeight;
    sum += entropyBits(lh, n) + entropyBits(hl, n) + entropyBits(hh, n);
    approx = next;
    w = halfWidth;
  }
  return sum / (3 * LEVELS);
}

/**
 * Visual complexity as subband entropy (Rosenholtz, Li & Nakano 2007, "Measuring visual clutter"), with the
 * orthonormal Haar wavelet (3 levels) in place of their steerable pyramid: the mean Shannon entropy (bits) of
 * the detail coefficients, per CIELAB channel, weighted 0.84 L, 0.08 a, 0.08 b. A flat page is 0; busier pages
 * score higher. Pages smaller than 8 px on a side are 0.
 */
export function subbandEntropy(image: RgbImage): number {
  assertRgbImage(image);
  const block = 2 ** LEVELS;
  const width = image.width - (image.width % block);
  const height = image.height - (image.height % block);
  if (width === 0 || height === 0) return 0;
  const planes = labPlanes(image, width, height);
  return planes.reduce(
    (sum, plane, channel) => sum + CHANNEL_WEIGHTS[channel]! * planeSubbandEntropy(plane, width),
    0,
  );
}
