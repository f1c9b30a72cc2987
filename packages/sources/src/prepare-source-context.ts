import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  hashBytes,
  hashFile,
  InputError,
  isXsbError,
  type RunLayout,
  readJson,
  readUtf8Text,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { extractSourceText, resolveMaxChars, resolvePdfParser } from './extract-source-text';
import { parsePageRange } from './page-range';
import { type SourceContext, sourceContextSchema } from './schemas/source-context';
import {
  type ExtractedSource,
  type PreparedSourceContext,
  type PrepareSourceContextOptions,
  SOURCE_EXTRACTOR_VERSION,
  type SourceCase,
  type SourceContextText,
} from './source-types';

const SOURCE_CONTEXT_META_FILE = 'source_context.json';

export function sourceContextMetaFile(layout: RunLayout, caseLabel: string): string {
  return join(dirname(layout.sourceContextFile(caseLabel)), SOURCE_CONTEXT_META_FILE);
}

/**
 * Writes `source_context.txt`, then `source_context.json` (last: a crash between leaves a record that
 * no longer matches the text, forcing a redo). Skipped while the record matches the source, settings
 * and `extractor_version`, so a changed rule reaches the text and, through its hash, every later stage.
 */
export async function prepareSourceContext(
  layout: RunLayout,
  sourceCase: SourceCase,
  options: PrepareSourceContextOptions = {},
): Promise<PreparedSourceContext> {
  const pdfParser = resolvePdfParser(options.pdfParser);
  const contextFile = layout.sourceContextFile(sourceCase.caseId);
  const contextMetaFile = sourceContextMetaFile(layout, sourceCase.caseId);
  const current = await readCurrentContext(contextFile, contextMetaFile);
  const selection = resolveSelection(sourceCase, options, current?.meta);
  if (current && !options.force) {
    const wantedParser =
      sourceCase.sourceType === 'pdf' && !options.keepPdfParser ? pdfParser : current.meta.parser;
    const sourceSha256 = await hashSourceOrNull(sourceCase.sourceFile);
    if (
      current.meta.source_sha256 === sourceSha256 &&
      current.meta.max_chars === selection.maxChars &&
      current.meta.page_range === selection.pageRange &&
      current.meta.parser === wantedParser &&
      current.meta.source_type === sourceCase.sourceType &&
      current.meta.extractor_version === SOURCE_EXTRACTOR_VERSION
    ) {
      return {
        extracted: toExtracted(current.meta, current.text),
        skipped: true,
        contextFile,
        contextMetaFile,
      };
    }
  }
  const extracted = await extractSourceText(sourceCase, {
    ...options,
    maxChars: selection.maxChars,
    pdfParser,
    pages: selection.pageRange,
  });
  const meta: SourceContext = {
    case_id: sourceCase.caseId,
    source_file: sourceCase.metadata.source_path,
    source_type: sourceCase.sourceType,
    source_sha256: extracted.sourceSha256,
    parser: extracted.parser,
    max_chars: extracted.maxChars,
    original_chars: extracted.originalChars,
    chars: extracted.text.length,
    truncated: extracted.truncated,
    text_sha256: hashBytes(extracted.text),
    page_count: extracted.pageCount,
    pages: extracted.pages,
    extractor_version: SOURCE_EXTRACTOR_VERSION,
    page_furniture: extracted.furniture,
    ...(extracted.pageRange !== undefined ? { page_range: extracted.pageRange } : {}),
  };
  if (options.persist !== false) {
    await writeFileAtomic(contextFile, extracted.text);
    await writeJson(contextMetaFile, sourceContextSchema, meta);
  }
  return { extracted, skipped: false, contextFile, contextMetaFile };
}

/** The text's hash must match its record: an edited or half-copied file is refused, not used. */
export async function readSourceContext(layout: RunLayout, caseLabel: string): Promise<SourceContextText> {
  const contextFile = layout.sourceContextFile(caseLabel);
  const metaFile = sourceContextMetaFile(layout, caseLabel);
  const meta = await readJson(metaFile, sourceContextSchema);
  const text = await readContextText(contextFile);
  if (hashBytes(text) !== meta.text_sha256) {
    throw new InputError(
      `does not match ${metaFile} (text hash differs); prepare the source of case ${caseLabel} again`,
      {
        file: contextFile,
        code: 'stale_source_context',
        remedy: { step: 'sources', force: true, caseLabel, dataDir: layout.dataDir },
      },
    );
  }
  const { originalChars: _, ...context } = toExtracted(meta, text);
  return context;
}

/** The given selection, else (`keepSourceSelection`) the recorded one, else the defaults. */
function resolveSelection(
  sourceCase: SourceCase,
  options: PrepareSourceContextOptions,
  recorded: SourceContext | undefined,
): { maxChars: number; pageRange: string | undefined } {
  const kept = options.keepSourceSelection ? recorded : undefined;
  const maxChars = resolveMaxChars(options.maxChars ?? kept?.max_chars);
  const pages = options.pages ?? kept?.page_range;
  const pageRange =
    pages !== undefined && sourceCase.sourceType === 'pdf' ? parsePageRange(pages).spec : undefined;
  return { maxChars, pageRange };
}

async function readContextText(file: string): Promise<string> {
  if (!existsSync(file))
    throw new InputError('file not found: the source of this case has not been prepared (stage 1)', {
      file,
      code: 'missing_file',
      remedy: { step: 'sources' },
    });
  return readUtf8Text(file);
}

async function readCurrentContext(
  contextFile: string,
  metaFile: string,
): Promise<{ meta: SourceContext; text: string } | undefined> {
  try {
    const meta = await readJson(metaFile, sourceContextSchema);
    const text = await readUtf8Text(contextFile);
    return hashBytes(text) === meta.text_sha256 ? { meta, text } : undefined;
  } catch (error) {
    // Missing, unreadable or invalid previous output just means "not done yet": redo it.
    if (isXsbError(error)) return undefined;
    throw error;
  }
}

async function hashSourceOrNull(file: string): Promise<string | null> {
  try {
    return await hashFile(file);
  } catch {
    return null;
  }
}

function toExtracted(meta: SourceContext, text: string): ExtractedSource {
  return {
    text,
    parser: meta.parser,
    pages: meta.pages,
    pageCount: meta.page_count,
    furniture: meta.page_furniture,
    sourceSha256: meta.source_sha256,
    originalChars: meta.original_chars,
    truncated: meta.truncated,
    maxChars: meta.max_chars,
    ...(meta.page_range !== undefined ? { pageRange: meta.page_range } : {}),
  };
}
