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

const NAMED_ENTITIES: Record<string, string> = {
  nbsp: ' ',
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  hellip: '\u2026',
  deg: '\u00b0',
  times: '\u00d7',
  minus: '\u2212',
  le: '\u2264',
  ge: '\u2265',
  plusmn: '\u00b1',
  micro: '\u00b5',
  euro: '\u20ac',
  pound: '\u00a3',
  copy: '\u00a9',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function cellText(html: string): string {
  return decodeEntities(html.replace(/<[^>]+>/g, ' '))
    .replace(/\|/g, '/')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An HTML table as Markdown pipe rows, so the lexical planner can turn it into a native table. */
function tableToPipes(table: string): string {
  const rows = [...table.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)].map((row) =>
    [...(row[1] ?? '').matchAll(/<t[hd]\b[^>]*>([\s\S]*?)<\/t[hd]>/gi)].map((cell) =>
      cellText(cell[1] ?? ''),
    ),
  );
  const filled = rows.filter((cells) => cells.length > 0);
  if (filled.length === 0) return '\n';
  const lines = filled.map((cells) => `| ${cells.join(' | ')} |`);
  lines.splice(1, 0, `| ${(filled[0] ?? []).map(() => '---').join(' | ')} |`);
  return `\n\n${lines.join('\n')}\n\n`;
}

/** A plain-text view of an HTML page: chrome (nav, aside, scripts) dropped, headings kept as `#`, tables as pipe rows. */
function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<table\b[^>]*>([\s\S]*?)<\/table>/gi, (_, inner: string) => tableToPipes(inner))
    .replace(/<(head|script|style|nav|header|footer|aside|noscript|template)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<h([1-6])[^>]*>/gi, (_, level: string) => `\n\n${'#'.repeat(Number(level))} `)
    .replace(/<\/(p|div|li|h[1-6]|tr|section|article|table|ul|ol)>/gi, '\n\n')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/t[dh]>/gi, ' ')
    .replace(/<[^>]+>/g, ' ');
  return decodeEntities(text)
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
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
    throw new InputError('the source has no text to build slides from', {
      file: sourceDocument,
      code: 'empty_source',
    });
  }
  return text.slice(0, maxChars);
}
