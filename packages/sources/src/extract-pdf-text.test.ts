import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { buildTextPdf } from './build-text-pdf';
import { extractPdfPages, joinPages, PAGE_SEPARATOR } from './extract-pdf-text';

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
});
