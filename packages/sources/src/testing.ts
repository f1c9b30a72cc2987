import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export {
  type FakeMineruOptions,
  type FakeMineruRequest,
  type FakeMineruServer,
  startFakeMineruServer,
} from './fake-mineru-server';

/**
 * Builds a small valid PDF (1.4, Helvetica, one text stream per page, exact xref offsets) from plain
 * text pages. Used for fixtures and tests; only printable ASCII is supported (WinAnsi without escapes
 * beyond `\`, `(` and `)`), and lines are not wrapped: callers pass already-wrapped lines.
 */
export function buildTextPdf(
  pages: ReadonlyArray<ReadonlyArray<string>>,
  options: { title?: string } = {},
): Uint8Array {
  if (pages.length === 0) throw new RangeError('buildTextPdf: at least one page is needed');
  for (const line of pages.flat()) {
    if (!/^[\x20-\x7e]*$/.test(line))
      throw new RangeError(`buildTextPdf: only printable ASCII is supported: ${line}`);
  }
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesRoot = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const pageIds: number[] = [];
  for (const lines of pages) {
    const ops = ['BT', '/F1 11 Tf', '14 TL', '56 770 Td'];
    for (const line of lines) ops.push(`(${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj T*`);
    ops.push('ET');
    const stream = ops.join('\n');
    const content = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    pageIds.push(
      add(
        `<< /Type /Page /Parent ${pagesRoot} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesRoot} 0 R >>`;
  objects[pagesRoot - 1] =
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  const info = options.title
    ? add(`<< /Title (${options.title.replace(/[\\()]/g, (c) => `\\${c}`)}) /Producer (xsb) >>`)
    : undefined;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * Writes `<dataDir>/sources/<caseId>/<fileName>` (and `source_metadata.json` when given) for tests;
 * returns the source file path.
 */
export async function writeSourceCase(
  dataDir: string,
  caseId: string,
  fileName: string,
  content: string | Uint8Array,
  metadata?: Record<string, unknown>,
): Promise<string> {
  const dir = join(dataDir, 'sources', caseId);
  await mkdir(dir, { recursive: true });
  const file = join(dir, fileName);
  await writeFile(file, content);
  if (metadata) await writeFile(join(dir, 'source_metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  return file;
}
