import { ValidationError } from '@xsb/core/basics';

/** A rendered page as 8-bit sRGB, three bytes per pixel, rows top to bottom (what sharp's `raw()` gives). */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A rectangle in pixels from the top-left corner. */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function assertRgbImage(image: RgbImage, name = 'image'): void {
  const { width, height, data } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
    throw new ValidationError(`width and height must be positive integers, got ${width}×${height}`, {
      field: name,
    });
  if (data.length !== width * height * 3)
    throw new ValidationError(
      `${data.length} bytes for ${width}×${height} pixels, expected ${width * height * 3} (RGB, 8 bits)`,
      { field: name },
    );
}

/** An image of one colour: the building block of the tests' synthetic pages. */
export function solidImage(width: number, height: number, rgb: readonly [number, number, number]): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i += 3) {
    data[i] = rgb[0];
    data[i + 1] = rgb[1];
    data[i + 2] = rgb[2];
  }
  return { width, height, data };
}

/** Paints a rectangle (clipped to the image) in place. */
export function fillBox(image: RgbImage, box: PixelBox, rgb: readonly [number, number, number]): RgbImage {
  const [x0, y0, x1, y1] = clipBox(image, box);
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 3;
      image.data[i] = rgb[0];
      image.data[i + 1] = rgb[1];
      image.data[i + 2] = rgb[2];
    }
  return image;
}

/** `[x0, y0, x1, y1)` of a box inside the image, rounded outwards; empty when it lies outside. */
export function clipBox(image: RgbImage, box: PixelBox): [number, number, number, number] {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(image.width, Math.ceil(box.x + box.width));
  const y1 = Math.min(image.height, Math.ceil(box.y + box.height));
  return [x0, y0, Math.max(x0, x1), Math.max(y0, y1)];
}
