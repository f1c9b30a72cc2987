import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashBytes, InputError, readJson, readUtf8Text } from '@xsb/core';
import {
  extractSourceText,
  type SourcePageFurniture,
  sourceContextSchema,
  sourceTypeForFile,
} from '@xsb/sources';

/** Each marked line goes with its line break, so a sentence broken across pages joins up again. */
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

/** None when the record is missing, unreadable or of another text (its offsets would cut wrong lines). */
async function recordedFurniture(contextFile: string, text: string): Promise<SourcePageFurniture[]> {
  const metaFile = join(dirname(contextFile), 'source_context.json');
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
 * The case's `source_context.txt` (what probes and evaluation use) when it exists, else the source
 * extracted as stage 1 does; without page furniture, so no running head becomes a slide title.
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
