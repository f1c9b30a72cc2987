import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { extractPdfPages, joinPages, PAGE_SEPARATOR } from './extract-pdf-text';
import { buildTextPdf } from './testing';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const corpusPdfDir = join(repoRoot, '../shared/corpus/pdf');

/** Pages per corpus file, from the corpus README (poppler's pdfinfo), or the reason it must fail. */
const CORPUS_EXPECTATIONS: Record<string, { pages: number } | { error: RegExp }> = {
  'minimal-document.pdf': { pages: 1 },
  '002-trivial-libre-office-writer.pdf': { pages: 1 },
  'pdflatex-4-pages.pdf': { pages: 4 },
  'pdflatex-outline.pdf': { pages: 4 },
  'pdflatex-image.pdf': { pages: 1 },
  'imagemagick-images.pdf': { error: /no text layer \(6 pages/ },
  'libreoffice-writer-password.pdf': { error: /password-protected/ },
  'google-doc-document.pdf': { pages: 1 },
  'habibi.pdf': { pages: 1 },
  'crazyones-pdfa.pdf': { pages: 1 },
  'pdfkit.pdf': { pages: 1 },
  'multicolumn.pdf': { pages: 3 },
  'GeoTopo-komprimiert.pdf': { pages: 117 },
};

describe('extractPdfPages', () => {
  it('returns the text of each page in order', async () => {
    const pdf = buildTextPdf([
      ['Page one: the COP was 3.4.', 'Second line (with parentheses).'],
      ['Page two mentions 412 homes.'],
      ['Page three.'],
    ]);
    const { pages } = await extractPdfPages(pdf, 'report.pdf');
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('Page one: the COP was 3.4.');
    expect(pages[0]).toContain('Second line (with parentheses).');
    expect(pages[1]).toBe('Page two mentions 412 homes.');
    expect(pages[2]).toBe('Page three.');
  });

  it('leaves the caller’s buffer usable (pdf.js may detach what it is given)', async () => {
    const pdf = buildTextPdf([['Reusable bytes']]);
    await extractPdfPages(pdf, 'a.pdf');
    expect(pdf.byteLength).toBeGreaterThan(0);
    expect((await extractPdfPages(pdf, 'a.pdf')).pages[0]).toBe('Reusable bytes');
  });

  it('refuses zero bytes, garbage and a truncated PDF with the file named', async () => {
    await expect(extractPdfPages(new Uint8Array(0), 'empty.pdf')).rejects.toThrow(
      /^empty\.pdf: the PDF file is empty/,
    );
    await expect(extractPdfPages(new TextEncoder().encode('not a pdf at all'), 'junk.pdf')).rejects.toThrow(
      /^junk\.pdf: corrupt or not a PDF/,
    );
    const whole = buildTextPdf([['Some text']]);
    await expect(extractPdfPages(whole.slice(0, 40), 'cut.pdf')).rejects.toThrow(/^cut\.pdf: /);
  });

  it('refuses a PDF whose pages carry no text', async () => {
    const blank = buildTextPdf([[], []]);
    const error = await extractPdfPages(blank, 'scan.pdf').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('no_text_layer');
    expect((error as Error).message).toMatch(/^scan\.pdf: the PDF has no text layer \(2 pages/);
  });
});

/**
 * A one-page PDF as TeX writes math: text in CMR10, the negation slash (code 0x36) and the maps-to
 * stem (0x37) in CMSY10, blackboard R in MSBM10. The fonts are not embedded and have no ToUnicode,
 * so pdf.js gives these glyphs as the characters of their codes, as it does for TeX's embedded fonts.
 */
function buildMathFontPdf(): Uint8Array {
  const stream = [
    'BT /R 11 Tf 56 770 Td (Sei x ) Tj /S 11 Tf (6) Tj /R 11 Tf ( = 0 und f : ) Tj',
    '/B 11 Tf (R) Tj /S 11 Tf ( ) Tj (!) Tj ( ) Tj /R 11 Tf (R, x ) Tj /S 11 Tf (7) Tj (!) Tj',
    '/R 11 Tf ( 2x; es gilt 3 + 6 = 9.) Tj ET',
  ]
    .join('\n')
    // CMSY code 0x21 is the arrow →.
    .replace(/\(!\)/g, '(\\041)');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [6 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 >>',
    // The embedded CMSY names code 0x21 `arrowright`; its codes 0x36 and 0x37 carry no usable name.
    '<< /Type /Font /Subtype /Type1 /BaseFont /CMSY10 /Encoding << /Differences [33 /arrowright] >> >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /MSBM10 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /R 3 0 R /S 4 0 R /B 5 0 R >> >> /Contents 7 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, index) => {
    const at = out.length;
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

describe('extractPdfPages on TeX math fonts', () => {
  it('maps ≠, ↦ and ℝ back by their font and leaves the same digits in text fonts', async () => {
    const { pages } = await extractPdfPages(buildMathFontPdf(), 'math.pdf');
    expect(pages[0]).toContain('Sei x ≠ 0');
    expect(pages[0]).toContain('x ↦ 2x');
    expect(pages[0]).toContain('ℝ');
    expect(pages[0]).not.toMatch(/x 6 ?=|x 7 ?→/);
    expect(pages[0]).toContain('3 + 6 = 9.');
  });
});

describe('joinPages', () => {
  it('records spans that slice back to each page exactly', () => {
    const pages = ['alpha', '', 'gamma delta'];
    const { text, spans } = joinPages(pages);
    expect(text).toBe(['alpha', '', 'gamma delta'].join(PAGE_SEPARATOR));
    expect(spans.map((s) => s.page)).toEqual([1, 2, 3]);
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual(pages);
  });
});

// The shared corpus lives outside the repository (../shared/corpus); a user's clone has none.
describe.skipIf(!existsSync(corpusPdfDir))('extractPdfPages on the shared PDF corpus', () => {
  const files = existsSync(corpusPdfDir)
    ? readdirSync(corpusPdfDir)
        .filter((f) => f.endsWith('.pdf'))
        .sort()
    : [];

  it('knows what to expect of every corpus PDF', () => {
    expect(files.filter((f) => !(f in CORPUS_EXPECTATIONS))).toEqual([]);
  });

  for (const name of files) {
    it(`${name}: right page count or a clear reason`, async () => {
      const expected = CORPUS_EXPECTATIONS[name];
      const file = join(corpusPdfDir, name);
      const bytes = new Uint8Array(await readFile(file));
      if (expected && 'error' in expected) {
        await expect(extractPdfPages(bytes, file)).rejects.toThrow(expected.error);
        await expect(extractPdfPages(bytes, file)).rejects.toThrow(file);
        return;
      }
      const { pages } = await extractPdfPages(bytes, file);
      expect(pages).toHaveLength(expected ? expected.pages : -1);
      expect(pages.join('').trim().length).toBeGreaterThan(0);
    }, 60_000);
  }

  it('keeps reading order and page text for the 4-page pdflatex file', async () => {
    const { pages } = await extractPdfPages(
      new Uint8Array(await readFile(join(corpusPdfDir, 'pdflatex-4-pages.pdf'))),
      'x',
    );
    expect(pages[0]).toMatch(/^Hello, here is some text without a meaning/);
    for (const page of pages) expect(page.length).toBeGreaterThan(2000);
  });

  it('maps the math-font debris of the German topology textbook back (≠, ↦)', async () => {
    const { pages } = await extractPdfPages(
      new Uint8Array(await readFile(join(corpusPdfDir, 'GeoTopo-komprimiert.pdf'))),
      'x',
    );
    const text = pages.join(PAGE_SEPARATOR);
    // Before the mapping: 79 `6 =` (one of them a real sum, `8 − 12 + 6 = 2`) and 44 `7→`/`7 →`.
    expect(text.split('6 =').length - 1).toBe(1);
    expect(text).toContain('8 − 12 + 6 = 2');
    expect(text).not.toMatch(/7 ?→|6=/);
    expect(text.split('≠').length - 1).toBeGreaterThanOrEqual(79);
    expect(text.split('↦').length - 1).toBeGreaterThanOrEqual(43);
    expect(text).toContain('Ui ≠ ∅');
  }, 120_000);
});
