import { existsSync } from 'node:fs';
import { InputError, readUtf8Text } from '@xsb/core';
import { extractSourceText, sourceTypeForFile } from '@xsb/sources';

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
    text = await readUtf8Text(options.sourceContextFile);
    if (text.trim() === '') {
      throw new InputError('the source context has no text to build slides from', {
        file: options.sourceContextFile,
        code: 'empty_source',
      });
    }
  } else {
    const sourceType = sourceTypeForFile(sourceDocument) ?? 'text';
    text = (await extractSourceText({ sourceFile: sourceDocument, sourceType }, { maxChars })).text;
  }
  return text.slice(0, maxChars);
}
