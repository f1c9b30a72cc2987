/** sRGB decoding (IEC 61966-2-1) of a channel level 0–255, possibly fractional (a mean colour). */
export function srgbToLinear(level: number): number {
  const c = level / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}
