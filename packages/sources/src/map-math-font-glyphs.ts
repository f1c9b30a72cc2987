/**
 * TeX's math fonts (CMSY, CMMI, MSAM, MSBM) carry glyphs that pdf.js cannot name: it then gives the
 * glyph's character code as a Latin-1 character, so `≠` (CMSY's negation slash over `=`) reads
 * `6 =` and `↦` (CMSY's maps-to stem before `→`) reads `7→`. The font tells which code was meant:
 * these tables give the character of each such code in TeX's font encodings (OMS for CMSY, OML for
 * CMMI, the AMS `msam`/`msbm` tables), only for codes pdf.js was seen to leave unnamed.
 */

/** Noncharacters standing for the two CMSY glyphs that combine with the next character. */
export const NEGATION_MARK = '\ufdd0';
export const MAPSTO_MARK = '\ufdd1';

type FontFamily = 'cmsy' | 'cmmi' | 'msam' | 'msbm';

const GLYPHS: Record<FontFamily, Record<string, string>> = {
  // OMS: 0x33 owner, 0x34 triangle, 0x3C/0x3D Re/Im (fraktur); 0x36/0x37 combine (see below).
  cmsy: { '6': NEGATION_MARK, '7': MAPSTO_MARK, '3': '∋', '4': '△', '<': 'ℜ', '=': 'ℑ' },
  // OML: 0x25 varrho.
  cmmi: { '%': 'ϱ' },
  // msam: 0x03 square, 0x04 blacksquare (the end-of-proof mark).
  msam: { '\u0003': '□', '\u0004': '■' },
  // msbm: A–Z are blackboard bold (ℝ, ℕ, …); filled in below.
  msbm: {},
};
const DOUBLE_STRUCK_BMP: Record<string, string> = { C: 'ℂ', H: 'ℍ', N: 'ℕ', P: 'ℙ', Q: 'ℚ', R: 'ℝ', Z: 'ℤ' };
for (let code = 0x41; code <= 0x5a; code += 1) {
  const letter = String.fromCharCode(code);
  GLYPHS.msbm[letter] = DOUBLE_STRUCK_BMP[letter] ?? String.fromCodePoint(0x1d538 + code - 0x41);
}

/** `BIKXFS+CMSY10` → `cmsy`; the bold variants (CMBSY, CMMIB) use the same encodings. */
export function mathFontFamily(fontName: string | undefined): FontFamily | undefined {
  const base = (fontName ?? '').replace(/^[A-Z]{6}\+/, '').toUpperCase();
  if (/^CMB?SY\d*$/.test(base)) return 'cmsy';
  if (/^CMMIB?\d*$/.test(base)) return 'cmmi';
  if (/^MSAM\d*$/.test(base)) return 'msam';
  if (/^MSBM\d*$/.test(base)) return 'msbm';
  return undefined;
}

const MAPPED_CODES = new Set(Object.values(GLYPHS).flatMap((table) => Object.keys(table)));

/**
 * pdf.js starts an item at every font change, so such glyphs come in short items without words;
 * testing only those keeps the font look-ups to a few pages.
 */
export function mayBeMathGlyph(str: string): boolean {
  const chars = [...str.trim()];
  return (
    chars.length > 0 &&
    chars.length <= 6 &&
    chars.some((ch) => MAPPED_CODES.has(ch)) &&
    !/[A-Za-z]{2}/.test(str)
  );
}

export function mapMathFontGlyphs(str: string, fontName: string | undefined): string {
  const family = mathFontFamily(fontName);
  if (!family) return str;
  const table = GLYPHS[family];
  return [...str].map((ch) => table[ch] ?? ch).join('');
}

/** The negation slash joins the next character (U+0338, NFC), the maps-to stem the arrow after it. */
export function resolveCombiningMarks(text: string): string {
  if (!text.includes(NEGATION_MARK) && !text.includes(MAPSTO_MARK)) return text;
  return text
    .replace(/\ufdd1(?:[ \t]*(−→|-→|→|⟶))?/g, (_match, arrow?: string) =>
      arrow === undefined ? '|' : arrow.length > 1 || arrow === '⟶' ? '⟼' : '↦',
    )
    .replace(/\ufdd0(?:[ \t]*([^\s\p{M}]\p{M}*))?/gu, (_match, next?: string) =>
      next === undefined ? '/' : `${next}\u0338`.normalize('NFC'),
    );
}
