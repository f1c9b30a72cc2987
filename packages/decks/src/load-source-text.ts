import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { InputError } from '@xsb/core';
import {
  decodeUtf8Text,
  extractHtmlText,
  extractPdfPages,
  extractPlainText,
  joinPages,
  readSourceBytes,
  sourceTypeForFile,
} from '@xsb/sources';

/**
 * The source text a generator works from: the case's `source_context.txt` (stage 2's extraction,
 * what probes and evaluation use) when it exists, else the row's source document extracted the way
 * stage 1 does it (`@xsb/sources`: PDF text via unpdf page by page, HTML without chrome, Markdown and
 * text as written). Capped at `maxChars`.
 */
export async function loadSourceText(
  sourceDocument: string,
  options: { sourceContextFile?: string; maxChars?: number } = {},
): Promise<string> {
  const maxChars = options.maxChars ?? 200_000;
  let text: string;
  if (options.sourceContextFile && existsSync(options.sourceContextFile)) {
    text = decodeUtf8Text(await readFile(options.sourceContextFile), options.sourceContextFile);
    if (text.trim() === '') {
      throw new InputError('the source context has no text to build slides from', {
        file: options.sourceContextFile,
        code: 'empty_source',
      });
    }
  } else {
    const bytes = await readSourceBytes(sourceDocument);
    const type = sourceTypeForFile(sourceDocument);
    if (type === 'pdf') text = joinPages((await extractPdfPages(bytes, sourceDocument)).pages).text;
    else if (type === 'html') text = extractHtmlText(bytes, sourceDocument);
    else text = extractPlainText(bytes, sourceDocument);
  }
  return text.slice(0, maxChars);
}
