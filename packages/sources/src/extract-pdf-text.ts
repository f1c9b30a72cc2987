import { InputError } from '@xsb/core';
import { getDocumentProxy } from 'unpdf';
import { mapMathFontGlyphs, mayBeMathGlyph, resolveCombiningMarks } from './map-math-font-glyphs';
import type { SourcePageSpan } from './schemas/source-context';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

export interface PdfPages {
  pages: string[];
}

export const PAGE_SEPARATOR = '\n\n';

/** The text layer of each page (unpdf); TeX math-font glyphs pdf.js cannot name are mapped back by font. */
export async function extractPdfPages(bytes: Uint8Array, file: string): Promise<PdfPages> {
  if (bytes.byteLength === 0)
    throw new InputError('the PDF file is empty (0 bytes)', { file, code: 'empty_file' });
  // pdf.js may transfer (detach) the buffer it is given: hand it a copy so callers keep theirs.
  const data = new Uint8Array(bytes);
  let document: PdfDocument;
  try {
    document = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false, stopAtErrors: false });
  } catch (error) {
    throw pdfOpenError(error, file);
  }
  try {
    const text: string[] = [];
    for (let number = 1; number <= document.numPages; number += 1)
      text.push(await readPageText(document, number));
    const pages = text.map((page) =>
      page
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+$/gm, '')
        .trim(),
    );
    if (pages.length === 0) throw new InputError('the PDF has no pages', { file, code: 'no_pages' });
    if (pages.every((page) => page === '')) {
      throw new InputError(
        `the PDF has no text layer (${pages.length} page${pages.length === 1 ? '' : 's'}, all without text: a scanned or image-only PDF); OCR it first or parse it with MinerU`,
        { file, code: 'no_text_layer', details: { parser: 'unpdf' } },
      );
    }
    return { pages };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read the PDF's text (${(error as Error).message})`, {
      file,
      code: 'corrupt_pdf',
      cause: error,
    });
  } finally {
    await document.destroy();
  }
}

function pdfOpenError(error: unknown, file: string): InputError {
  const name = (error as { name?: string } | undefined)?.name;
  const message = (error as Error | undefined)?.message ?? String(error);
  if (name === 'PasswordException') {
    return new InputError('the PDF is password-protected (encrypted); remove the password and retry', {
      file,
      code: 'encrypted_pdf',
      cause: error,
    });
  }
  return new InputError(`corrupt or not a PDF (${message})`, { file, code: 'corrupt_pdf', cause: error });
}

export function joinPages(pages: readonly string[]): {
  text: string;
  spans: SourcePageSpan[];
} {
  const spans: SourcePageSpan[] = [];
  let text = '';
  pages.forEach((page, index) => {
    if (index > 0) text += PAGE_SEPARATOR;
    spans.push({ page: index + 1, start: text.length, end: text.length + page.length });
    text += page;
  });
  return { text, spans };
}

/** One page's text as unpdf's `extractText` builds it, with math-font glyphs mapped. */
async function readPageText(document: PdfDocument, number: number): Promise<string> {
  const page = await document.getPage(number);
  const content = await page.getTextContent();
  const items = content.items.filter((item) => 'str' in item);
  const fontNames = await resolveFontNames(
    page,
    items.filter((item) => mayBeMathGlyph(item.str)).map((item) => item.fontName),
  );
  return resolveCombiningMarks(
    items
      .map((item) => mapMathFontGlyphs(item.str, fontNames.get(item.fontName)) + (item.hasEOL ? '\n' : ''))
      .join(''),
  );
}

/**
 * PDF font names (`BIKXFS+CMSY10`): pdf.js sends them only while building an operator list, so one
 * is built for a page using a font not seen before (most pages need none).
 */
async function resolveFontNames(page: PdfPage, wanted: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (wanted.length === 0) return names;
  if (wanted.some((id) => !page.commonObjs.has(id))) {
    installTransferPolyfill();
    try {
      await page.getOperatorList();
    } catch {
      // Unnamed fonts only mean unmapped glyphs.
    }
  }
  for (const id of wanted) {
    if (!page.commonObjs.has(id)) continue;
    const font = page.commonObjs.get(id) as { name?: unknown } | undefined;
    if (typeof font?.name === 'string') names.set(id, font.name);
  }
  return names;
}

/**
 * pdf.js 5 builds operator lists with `ArrayBuffer.prototype.transferToFixedLength` (ES2024, Node ≥ 21);
 * on Node 20 it fails and the page's fonts stay unnamed. This adds the method where it is missing:
 * a copy instead of a transfer, which is all pdf.js needs (it drops the old buffer).
 */
function installTransferPolyfill(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: unknown };
  if (typeof proto.transferToFixedLength === 'function') return;
  Object.defineProperty(ArrayBuffer.prototype, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length = this.byteLength): ArrayBuffer {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}
