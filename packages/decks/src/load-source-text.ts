import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashBytes, InputError, readJson, readUtf8Text } from '@xsb/core';
import {
  extractSourceText,
  type SourcePageFurniture,
  sourceContextSchema,
  sourceTypeForFile,
} from '@xsb/sources';

/** The record stage 1 writes beside `source_context.txt` (its page spans and page furniture). */
const SOURCE_CONTEXT_META_FILE = 'source_context.json';

/**
 * The text without its page furniture (running headers and footers, page numbers, as stage 1 marks
 * them): each marked line is removed with its line break, so a page's body follows the blank line
 * that separates pages and a sentence broken across pages joins up again.
 */
export function withoutPageFurniture(text: string, furniture: readonly SourcePageFurniture[]): string {
  let result = text;
  const lines = [...furniture].sort((a, b) => b.start - a.start);
  for (const line of lines) {
    if (line.start >= line.end || line.end > result.length) continue;
    const end = result[line.end] === '\n' ? line.end + 1 : line.end;
    result = result.slice(0, line.start) + result.slice(end);
  }
  return result;
}

/**
 * The furniture stage 1 recorded for this context text, or none when the record is missing,
 * unreadable or describes another text (its offsets would cut the wrong lines).
 */
async function recordedFurniture(contextFile: string, text: string): Promise<SourcePageFurniture[]> {
  const metaFile = join(dirname(contextFile), SOURCE_CONTEXT_META_FILE);
  if (!existsSync(metaFile)) return [];
  try {
    const meta = await readJson(metaFile, sourceContextSchema);
    return meta.text_sha256 === hashBytes(text) ? meta.page_furniture : [];
  } catch {
    // The record is stage 1's to check; a deck can still be made from the text alone.
    return [];
  }
}

/**
 * The source text a generator works from: the case's `source_context.txt` (stage 2's extraction,
 * what probes and evaluation use) when it exists, else the row's source document extracted the way
 * stage 1 does it (`@xsb/sources`: PDF text via unpdf page by page, HTML without chrome, Markdown and
 * text as written). Page furniture (running headers and footers, page numbers) is left out, so no
 * running head becomes a slide title: for the context, the lines its `source_context.json` marks; for
 * an extraction, the lines the extraction marks. Capped at `maxChars`.
 */
export async function loadSourceText(
  sourceDocument: string,
  options: { sourceContextFile?: string; maxChars?: number } = {},
): Promise<string> {
  const maxChars = options.maxChars ?? 200_000;
  let text: string;
  if (options.sourceContextFile && existsSync(options.sourceContextFile)) {
    const context = await readUtf8Text(options.sourceContextFile);
    if (context.trim() === '') {
      throw new InputError('the source context has no text to build slides from', {
        file: options.sourceContextFile,
        code: 'empty_source',
      });
    }
    text = withoutPageFurniture(context, await recordedFurniture(options.sourceContextFile, context));
  } else {
    const sourceType = sourceTypeForFile(sourceDocument) ?? 'text';
    const extracted = await extractSourceText({ sourceFile: sourceDocument, sourceType }, { maxChars });
    text = withoutPageFurniture(extracted.text, extracted.furniture);
  }
  return text.slice(0, maxChars);
}
