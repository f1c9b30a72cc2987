import { describe, expect, it } from 'vitest';
import { balance } from './balance';
import { colorfulness } from './colorfulness';
import { hueHarmony } from './hue-harmony';
import { fillBox, type RgbImage, solidImage } from './rgb-image';
import { subbandEntropy } from './subband-entropy';
import { contrastRatio, relativeLuminance, textContrast } from './text-contrast';
import { whitespace } from './whitespace';

const WHITE = [255, 255, 255] as const;
const BLACK = [0, 0, 0] as const;

/** Left half one colour, right half another. */
function halves(
  width: number,
  height: number,
  left: [number, number, number],
  right: [number, number, number],
) {
  return fillBox(solidImage(width, height, left), { x: width / 2, y: 0, width: width / 2, height }, right);
}

/** A white box with dark "glyph" strokes, anti-aliased at their edges like a rendered word. */
function textBox(ink: [number, number, number]): RgbImage {
  const image = solidImage(120, 40, WHITE);
  for (let x = 10; x < 110; x += 12) {
    fillBox(image, { x, y: 10, width: 4, height: 20 }, ink);
    const edge = ink.map((c) => Math.round((c + 255) / 2)) as [number, number, number];
    fillBox(image, { x: x + 4, y: 10, width: 1, height: 20 }, edge);
  }
  return image;
}

describe('colorfulness (Hasler & Süsstrunk)', () => {
  it('is 0 on a flat grey page and matches the formula on hand-computed pages', () => {
    expect(colorfulness(solidImage(8, 8, [128, 128, 128]))).toBe(0);
    // Pure red: rg = 255, yb = 127.5, no spread: 0.3·√(255² + 127.5²).
    expect(colorfulness(solidImage(4, 4, [255, 0, 0]))).toBeCloseTo(0.3 * Math.hypot(255, 127.5), 10);
    // Red | green: rg = ±255 (σ 255, μ 0), yb = 127.5 (σ 0): 255 + 0.3·127.5.
    expect(colorfulness(halves(4, 2, [255, 0, 0], [0, 255, 0]))).toBeCloseTo(255 + 0.3 * 127.5, 10);
  });

  it('refuses a buffer that does not match its size, naming the field', () => {
    expect(() => colorfulness({ width: 2, height: 2, data: new Uint8Array(5) })).toThrow(
      /field "image": 5 bytes for 2×2 pixels, expected 12/,
    );
  });
});

describe('WCAG contrast', () => {
  it('gives 21:1 for black on white, 1:1 for equal colours, and the WCAG value for grey', () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 10);
    expect(contrastRatio([90, 90, 90], [90, 90, 90])).toBe(1);
    // #777777 on white: L = ((119/255 + 0.055)/1.055)^2.4 = 0.18447; (1.05)/(0.23447) = 4.478.
    expect(relativeLuminance([119, 119, 119])).toBeCloseTo(0.18447, 4);
    expect(contrastRatio([119, 119, 119], [255, 255, 255])).toBeCloseTo(4.478, 2);
  });

  it('reads the text and background colours of a rendered box, ignoring anti-aliased edges', () => {
    const box = { x: 0, y: 0, width: 120, height: 40 };
    const black = textContrast(textBox([0, 0, 0]), box);
    expect(black.ratio).toBeCloseTo(21, 5);
    expect(black.background).toEqual([255, 255, 255]);
    const lightGrey = textContrast(textBox([211, 211, 211]), box);
    expect(lightGrey.ratio).toBeLessThan(3);
    expect(lightGrey.ratio).toBeCloseTo(contrastRatio([211, 211, 211], [255, 255, 255]), 5);
    expect(textContrast(solidImage(20, 20, [40, 80, 200]), { x: 2, y: 2, width: 10, height: 10 }).ratio).toBe(
      1,
    );
  });
});

describe('whitespace and balance', () => {
  it('counts the background share and the offset of the visual centre of mass', () => {
    const quarter = fillBox(solidImage(100, 100, WHITE), { x: 0, y: 0, width: 50, height: 50 }, BLACK);
    expect(whitespace(quarter)).toBe(0.75);
    expect(whitespace(solidImage(10, 10, [30, 30, 30]))).toBe(1);
    const centred = fillBox(solidImage(100, 100, WHITE), { x: 40, y: 40, width: 20, height: 20 }, BLACK);
    expect(balance(centred)).toBeCloseTo(0, 10);
    // A 10×10 block in the corner: centroid (5, 5), offset (−0.9, −0.9)·… → √(0.81·2)/√2 = 0.9.
    const corner = fillBox(solidImage(100, 100, WHITE), { x: 0, y: 0, width: 10, height: 10 }, BLACK);
    expect(balance(corner)).toBeCloseTo(0.9, 10);
    expect(balance(solidImage(10, 10, WHITE))).toBe(0);
  });
});

describe('hue harmony (Cohen-Or et al.)', () => {
  it('is 0 for greys, one hue and two complementary hues, and positive for a triad', () => {
    expect(hueHarmony(solidImage(8, 8, [128, 128, 128]))).toEqual({
      distance: 0,
      template: 'N',
      rotation: 0,
    });
    expect(hueHarmony(solidImage(8, 8, [200, 30, 30])).distance).toBe(0);
    const complementary = hueHarmony(halves(16, 8, [255, 0, 0], [0, 255, 255]));
    expect(complementary.distance).toBe(0);
    const triad = solidImage(30, 10, [255, 0, 0]);
    fillBox(triad, { x: 10, y: 0, width: 10, height: 10 }, [0, 255, 0]);
    fillBox(triad, { x: 20, y: 0, width: 10, height: 10 }, [0, 0, 255]);
    // Red, green, blue in equal thirds, 120° apart: X (two opposite 93.6° sectors) centred between red and
    // green leaves each of them 60 − 46.8 = 13.2° out and holds blue: (13.2 + 13.2 + 0) / 3 = 8.8°.
    expect(hueHarmony(triad).distance).toBeCloseTo(8.8, 10);
  });
});

describe('subband entropy', () => {
  it('is 0 for a flat page and grows with detail', () => {
    expect(subbandEntropy(solidImage(64, 64, [200, 10, 10]))).toBe(0);
    // Blocks at odd offsets (a perfectly regular pattern has one coefficient value per subband: 0 bits).
    const stripes = solidImage(64, 64, WHITE);
    for (const [x, width] of [
      [3, 5],
      [13, 2],
      [29, 7],
      [47, 3],
    ] as const)
      fillBox(stripes, { x, y: 5, width, height: 50 }, BLACK);
    const noise = solidImage(64, 64, WHITE);
    let seed = 7;
    for (let i = 0; i < noise.data.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      noise.data[i] = seed % 256;
    }
    expect(subbandEntropy(stripes)).toBeGreaterThan(0);
    expect(subbandEntropy(noise)).toBeGreaterThan(subbandEntropy(stripes));
  });
});
