import { InputError, type SourcePageSpan } from '@xsb/core';
import { extractText, getDocumentProxy } from 'unpdf';

/** Text of each page of a PDF, in page order (page 1 first). */
export interface PdfPages {
  pages: string[];
}

/** The separator between pages in a joined PDF text; page spans exclude it. */
export const PAGE_SEPARATOR = '\n\n';

/**
 * Extracts the text layer of a PDF page by page with unpdf (pdf.js). Errors name the file and the
 * reason: password-protected, corrupt or not a PDF, or no text layer (every page empty, as in a
 * scanned PDF). Page texts are normalised: CR/CRLF → LF, trailing spaces trimmed.
 */
export async function extractPdfPages(bytes: Uint8Array, file: string): Promise<PdfPages> {
  if (bytes.byteLength === 0)
    throw new InputError('the PDF file is empty (0 bytes)', { file, code: 'empty_file' });
  // pdf.js may transfer (detach) the buffer it is given: hand it a copy so callers keep theirs.
  const data = new Uint8Array(bytes);
  let document: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    document = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false, stopAtErrors: false });
  } catch (error) {
    throw pdfOpenError(error, file);
  }
  try {
    const { text } = await extractText(document, { mergePages: false });
    const pages = text.map((page) =>
      page
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+$/gm, '')
        .trim(),
    );
    if (pages.length === 0) throw new InputError('the PDF has no pages', { file, code: 'no_pages' });
    if (pages.every((page) => page === '')) {
      throw new InputError(
        `the PDF has no text layer (${pages.length} page${pages.length === 1 ? '' : 's'}, all without text: a scanned or image-only PDF); OCR it first or use --pdf-parser mineru`,
        { file, code: 'no_text_layer' },
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

/** Joins page texts with {@link PAGE_SEPARATOR}, recording where each page lies in the result. */
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
