import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { InputError } from '@xsb/core';
import { extractText, getDocumentProxy } from 'unpdf';

function decodeUtf8(bytes: Buffer, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new InputError('not valid UTF-8 text', { file, code: 'invalid_utf8' });
  }
}

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|nav|header|footer|noscript)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<h([1-6])[^>]*>/gi, (_, level: string) => `\n\n${'#'.repeat(Number(level))} `)
    .replace(/<\/(p|div|li|h[1-6]|tr|section|article)>/gi, '\n\n')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n\s*\n+/g, '\n\n')
    .trim();
}

/**
 * The source text a generator works from: the case's `source_context.txt` (stage 2's extraction,
 * what probes and evaluation use) when it exists, else the row's source document read directly
 * (Markdown/text as is, HTML stripped, PDF text via unpdf). Capped at `maxChars`.
 */
export async function loadSourceText(
  sourceDocument: string,
  options: { sourceContextFile?: string; maxChars?: number } = {},
): Promise<string> {
  const maxChars = options.maxChars ?? 200_000;
  let text: string;
  if (options.sourceContextFile && existsSync(options.sourceContextFile)) {
    text = decodeUtf8(await readFile(options.sourceContextFile), options.sourceContextFile);
  } else {
    let bytes: Buffer;
    try {
      bytes = await readFile(sourceDocument);
    } catch (error) {
      throw new InputError(`cannot read the source document (${(error as Error).message})`, {
        file: sourceDocument,
        code: 'missing_file',
      });
    }
    const extension = extname(sourceDocument).toLowerCase();
    if (extension === '.pdf') {
      try {
        const document = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
        const { text: pages } = await extractText(document, { mergePages: false });
        await document.destroy();
        text = pages.join('\n\n');
      } catch (error) {
        const reason =
          (error as { name?: string }).name === 'PasswordException'
            ? 'the PDF is password-protected (encrypted)'
            : `not a readable PDF: ${(error as Error).message}`;
        throw new InputError(reason, { file: sourceDocument, code: 'unreadable_source' });
      }
    } else if (extension === '.html' || extension === '.htm') {
      text = htmlToText(decodeUtf8(bytes, sourceDocument));
    } else {
      text = decodeUtf8(bytes, sourceDocument);
    }
  }
  if (text.trim() === '') {
    throw new InputError('the source has no text to build slides from', { file: sourceDocument, code: 'empty_source' });
  }
  return text.slice(0, maxChars);
}
