import { InputError, ZipArchive } from '@xsb/core';
import type { SourcePageSpan } from './schemas/source-context';

export type OfficeSourceType = 'docx' | 'odt' | 'pptx';

export interface OfficeText {
  text: string;
  /** PPTX: where each slide lies in `text`, in presentation order; else `[]`. */
  pages: SourcePageSpan[];
  pageCount: number;
}

interface XmlTextRules {
  /** Elements holding text (DOCX `w:t`); undefined: any text inside a paragraph (ODF). */
  textElements?: ReadonlySet<string>;
  paragraphs: ReadonlySet<string>;
  tabs: ReadonlySet<string>;
  breaks: ReadonlySet<string>;
  tables: ReadonlySet<string>;
  rows: ReadonlySet<string>;
  cells: ReadonlySet<string>;
  skipped: ReadonlySet<string>;
  /** ODF `text:s`: a run of `text:c` spaces. */
  spaces?: string;
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

const DOCX_RULES: XmlTextRules = {
  textElements: set('w:t'),
  paragraphs: set('w:p'),
  tabs: set('w:tab', 'w:ptab'),
  breaks: set('w:br', 'w:cr'),
  tables: set('w:tbl'),
  rows: set('w:tr'),
  cells: set('w:tc'),
  skipped: set('w:tabs', 'w:del', 'w:delText', 'w:instrText', 'w:commentReference', 'mc:Fallback'),
};

const DRAWINGML_RULES: XmlTextRules = {
  textElements: set('a:t'),
  paragraphs: set('a:p'),
  tabs: set(),
  breaks: set('a:br'),
  tables: set('a:tbl'),
  rows: set('a:tr'),
  cells: set('a:tc'),
  skipped: set('mc:Fallback'),
};

const ODF_RULES: XmlTextRules = {
  paragraphs: set('text:p', 'text:h'),
  tabs: set('text:tab'),
  breaks: set('text:line-break'),
  tables: set('table:table'),
  rows: set('table:table-row'),
  cells: set('table:table-cell'),
  skipped: set('office:annotation', 'text:tracked-changes', 'text:note', 'svg:desc', 'svg:title'),
  spaces: 'text:s',
};

/** Table cells are joined by ` | ` as for HTML; DOCX headers, footers, notes and PPTX speaker notes are not read. */
export function extractOfficeText(bytes: Uint8Array, file: string, type: OfficeSourceType): OfficeText {
  const zip = openPackage(bytes, file, type);
  if (type === 'pptx') return readSlides(zip, file);
  const part = type === 'docx' ? 'word/document.xml' : 'content.xml';
  const xml = zip.readText(part);
  if (xml === undefined) {
    throw new InputError(`not a .${type} file: the package has no ${part}`, { file, code: 'corrupt_office' });
  }
  return { text: xmlToText(xml, type === 'docx' ? DOCX_RULES : ODF_RULES), pages: [], pageCount: 0 };
}

function openPackage(bytes: Uint8Array, file: string, type: OfficeSourceType): ZipArchive {
  try {
    return ZipArchive.open(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), file);
  } catch (error) {
    throw new InputError(
      `not a readable .${type} file (${(error as Error).message.replace(`${file}: `, '')}); a password-protected document is not a ZIP package: remove the password and save it again`,
      { file, code: 'corrupt_office', cause: error },
    );
  }
}

function readSlides(zip: ZipArchive, file: string): OfficeText {
  const slideParts = slideOrder(zip);
  if (slideParts.length === 0) {
    throw new InputError('not a .pptx file, or a deck without slides: no ppt/slides/slide*.xml', {
      file,
      code: 'corrupt_office',
    });
  }
  const pages: SourcePageSpan[] = [];
  let text = '';
  slideParts.forEach((part, index) => {
    const slideText = xmlToText(zip.readText(part) ?? '', DRAWINGML_RULES);
    if (index > 0) text += '\n\n';
    pages.push({ page: index + 1, start: text.length, end: text.length + slideText.length });
    text += slideText;
  });
  return { text, pages, pageCount: slideParts.length };
}

/** Slide parts in `p:sldIdLst` order; a package without that list falls back to the file numbers. */
function slideOrder(zip: ZipArchive): string[] {
  const presentation = zip.readText('ppt/presentation.xml') ?? '';
  const rels = zip.readText('ppt/_rels/presentation.xml.rels') ?? '';
  const targets = new Map<string, string>();
  for (const match of rels.matchAll(/<Relationship\b([^>]*)>/g)) {
    const id = /\bId="([^"]+)"/.exec(match[1]!)?.[1];
    const target = /\bTarget="([^"]+)"/.exec(match[1]!)?.[1];
    if (id && target) targets.set(id, target.startsWith('/') ? target.slice(1) : `ppt/${target}`);
  }
  const listed = [...presentation.matchAll(/<p:sldId\b[^>]*\br:id="([^"]+)"/g)]
    .map((match) => targets.get(match[1]!))
    .filter((part): part is string => part !== undefined && zip.read(part) !== undefined);
  if (listed.length > 0) return listed;
  const number = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);
  return zip
    .names()
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => number(a) - number(b));
}

export function xmlToText(xml: string, rules: XmlTextRules): string {
  let out = '';
  let skipDepth = 0;
  let textDepth = 0;
  let paragraphDepth = 0;
  const rows: string[][] = [];
  const cellStarts: number[] = [];
  const tokens =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>|<!DOCTYPE[^>]*>|<(\/?)([\w:.-]+)([^>]*?)(\/?)>|([^<]+)/g;
  for (const token of xml.matchAll(tokens)) {
    const [, cdata, closing, name, attributes, selfClosing, chars] = token;
    if (name === undefined) {
      const data = chars !== undefined ? decodeXmlEntities(chars) : cdata;
      if (data === undefined || skipDepth > 0) continue;
      if (rules.textElements ? textDepth > 0 : paragraphDepth > 0) {
        out += rules.textElements ? data : data.replace(/\s+/g, ' ');
      }
      continue;
    }
    const open = closing !== '/';
    const empty = selfClosing === '/';
    if (rules.skipped.has(name)) {
      if (!empty) skipDepth += open ? 1 : -1;
      continue;
    }
    if (skipDepth > 0) continue;
    if (rules.textElements?.has(name) && !empty) textDepth += open ? 1 : -1;
    else if (rules.paragraphs.has(name)) {
      if (open && !empty) paragraphDepth += 1;
      if (!open || empty) {
        if (!empty) paragraphDepth -= 1;
        out += cellStarts.length > 0 ? ' ' : '\n\n';
      }
    } else if (open && rules.tabs.has(name)) out += '\t';
    else if (open && rules.breaks.has(name)) out += '\n';
    else if (open && name === rules.spaces) {
      out += ' '.repeat(Math.min(Number(/\btext:c="(\d+)"/.exec(attributes ?? '')?.[1] ?? 1), 1000));
    } else if (!open && rules.tables.has(name)) out += '\n';
    else if (rules.rows.has(name) && !empty) {
      if (open) rows.push([]);
      else out += formatRow(rows.pop() ?? []);
    } else if (rules.cells.has(name) && rows.length > 0) {
      if (empty) rows[rows.length - 1]!.push('');
      else if (open) cellStarts.push(out.length);
      else {
        const start = cellStarts.pop() ?? out.length;
        rows[rows.length - 1]!.push(out.slice(start).replace(/\s+/g, ' ').trim());
        out = out.slice(0, start);
      }
    }
  }
  return tidy(out);
}

function formatRow(cells: string[]): string {
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return cells.length === 0 ? '' : `${cells.join(' | ')}\n`;
}

function tidy(text: string): string {
  return text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n +/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (match, entity: string) => {
    if (entity[0] !== '#') return NAMED_ENTITIES[entity] ?? match;
    const code = entity[1] === 'x' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}
