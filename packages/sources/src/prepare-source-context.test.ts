import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashBytes, InputError, RunLayout, readJson, writeJson } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSourceCase } from './discover-source-cases';
import { startFakeMineruServer } from './fake-mineru-server';
import { prepareSourceContext, readSourceContext, sourceContextMetaFile } from './prepare-source-context';
import { sourceContextSchema } from './schemas/source-context';
import { SOURCE_EXTRACTOR_VERSION } from './source-types';
import { buildTextPdf, writeSourceCase } from './testing';

let data: string;
let layout: RunLayout;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const temp = await makeTempDir('xsb-prepare-');
  data = join(temp.dir, 'data');
  layout = new RunLayout(data);
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

describe('prepareSourceContext', () => {
  it('writes source_context.txt and a schema-valid source_context.json', async () => {
    await writeSourceCase(data, 'report', 'report.pdf', buildTextPdf([['First page'], ['Second page']]));
    const sourceCase = await loadSourceCase(data, 'report');
    const result = await prepareSourceContext(layout, sourceCase);
    expect(result.skipped).toBe(false);
    expect(result.contextFile).toBe(join(data, 'probes', 'report', 'source_context.txt'));
    expect(await readFile(result.contextFile, 'utf8')).toBe('First page\n\nSecond page');
    const meta = await readJson(sourceContextMetaFile(layout, 'report'), sourceContextSchema);
    expect(meta).toMatchObject({
      case_id: 'report',
      source_file: 'data/sources/report/report.pdf',
      source_type: 'pdf',
      parser: 'unpdf',
      max_chars: 1_000_000,
      original_chars: 23,
      chars: 23,
      truncated: false,
      page_count: 2,
      pages: [
        { page: 1, start: 0, end: 10 },
        { page: 2, start: 12, end: 23 },
      ],
    });
    expect(meta.source_sha256).toBe(result.extracted.sourceSha256);
  });

  it('skips a second run with the same source and settings, and redoes it when anything changes', async () => {
    const file = await writeSourceCase(data, 'notes', 'notes.md', '# Notes\n\nVersion one.');
    const sourceCase = await loadSourceCase(data, 'notes');
    const first = await prepareSourceContext(layout, sourceCase);
    const before = (await stat(first.contextFile)).mtimeMs;

    const second = await prepareSourceContext(layout, sourceCase);
    expect(second.skipped).toBe(true);
    expect(second.extracted).toEqual(first.extracted);
    expect((await stat(first.contextFile)).mtimeMs).toBe(before);

    expect((await prepareSourceContext(layout, sourceCase, { force: true })).skipped).toBe(false);

    const shorter = await prepareSourceContext(layout, sourceCase, { maxChars: 7 });
    expect(shorter.skipped).toBe(false);
    expect(await readFile(shorter.contextFile, 'utf8')).toBe('# Notes');

    await writeFile(file, '# Notes\n\nVersion two.');
    const changed = await prepareSourceContext(layout, sourceCase);
    expect(changed.skipped).toBe(false);
    expect(changed.extracted.text).toBe('# Notes\n\nVersion two.');
  });

  it('redoes a case whose text file was edited or lost after it was written', async () => {
    await writeSourceCase(data, 'notes', 'notes.md', '# Notes');
    const sourceCase = await loadSourceCase(data, 'notes');
    const first = await prepareSourceContext(layout, sourceCase);
    await writeFile(first.contextFile, 'tampered');
    const again = await prepareSourceContext(layout, sourceCase);
    expect(again.skipped).toBe(false);
    expect(await readFile(first.contextFile, 'utf8')).toBe('# Notes');
  });

  it('keeps a context made by another PDF parser only when asked to (later stages)', async () => {
    const server = await startFakeMineruServer({ markdown: '# From MinerU\n\nBody text.' });
    try {
      await writeSourceCase(data, 'report', 'report.pdf', buildTextPdf([['Local text layer']]));
      const sourceCase = await loadSourceCase(data, 'report');
      const env = { MINERU_API_URL: server.url };
      expect((await prepareSourceContext(layout, sourceCase, { pdfParser: 'mineru', env })).skipped).toBe(
        false,
      );
      const kept = await prepareSourceContext(layout, sourceCase, { keepPdfParser: true });
      expect(kept).toMatchObject({ skipped: true, extracted: { parser: 'mineru' } });
      expect(await readFile(kept.contextFile, 'utf8')).toBe('# From MinerU\n\nBody text.');
      const redone = await prepareSourceContext(layout, sourceCase);
      expect(redone).toMatchObject({
        skipped: false,
        extracted: { parser: 'unpdf', text: 'Local text layer' },
      });
    } finally {
      await server.close();
    }
  });

  it('redoes a context written by older extraction rules, then skips it again', async () => {
    const page = '<body><nav>Menu</nav><div role="search">Quick search</div><main><p>Body.</p></main></body>';
    await writeSourceCase(data, 'page', 'page.html', page);
    const sourceCase = await loadSourceCase(data, 'page');
    const first = await prepareSourceContext(layout, sourceCase);
    expect(first.extracted.text).toBe('Body.');
    // What an earlier version wrote: the search box in the text, and no extractor_version.
    const metaFile = sourceContextMetaFile(layout, 'page');
    const { extractor_version: _, ...older } = await readJson(metaFile, sourceContextSchema);
    const oldText = 'Quick search\n\nBody.';
    await writeFile(first.contextFile, oldText);
    await writeJson(metaFile, sourceContextSchema, { ...older, text_sha256: hashBytes(oldText) });
    const redone = await prepareSourceContext(layout, sourceCase);
    expect(redone.skipped).toBe(false);
    expect(await readFile(first.contextFile, 'utf8')).toBe('Body.');
    expect((await readJson(metaFile, sourceContextSchema)).extractor_version).toBe(SOURCE_EXTRACTOR_VERSION);
    expect((await prepareSourceContext(layout, sourceCase)).skipped).toBe(true);
  });

  it('records page furniture and hands it back unchanged when skipped', async () => {
    const pages = [1, 2, 3].map((n) => [
      'Quarterly Report',
      `Paragraph ${'abcdefghij'[n]} of the report body.`,
      `${n}`,
    ]);
    await writeSourceCase(data, 'report', 'report.pdf', buildTextPdf(pages));
    const sourceCase = await loadSourceCase(data, 'report');
    const first = await prepareSourceContext(layout, sourceCase);
    const meta = await readJson(sourceContextMetaFile(layout, 'report'), sourceContextSchema);
    expect(meta.page_furniture.map((line) => [line.page, line.kind])).toEqual([
      [1, 'running_header'],
      [1, 'page_number'],
      [2, 'running_header'],
      [2, 'page_number'],
      [3, 'running_header'],
      [3, 'page_number'],
    ]);
    const again = await prepareSourceContext(layout, sourceCase);
    expect(again).toMatchObject({ skipped: true, extracted: { furniture: first.extracted.furniture } });
    expect((await readSourceContext(layout, 'report')).furniture).toEqual(meta.page_furniture);
  });

  it('writes nothing for a failing source', async () => {
    await writeSourceCase(data, 'scan', 'scan.pdf', buildTextPdf([[]]));
    const sourceCase = await loadSourceCase(data, 'scan');
    await expect(prepareSourceContext(layout, sourceCase)).rejects.toThrow(/no text layer/);
    await expect(stat(layout.sourceContextFile('scan'))).rejects.toThrow(/ENOENT/);
  });
});

describe('readSourceContext', () => {
  it('returns the prepared text with its pages and parser', async () => {
    await writeSourceCase(data, 'report', 'report.pdf', buildTextPdf([['Alpha'], ['Beta']]));
    await prepareSourceContext(layout, await loadSourceCase(data, 'report'));
    const context = await readSourceContext(layout, 'report');
    expect(context).toMatchObject({ text: 'Alpha\n\nBeta', parser: 'unpdf', pageCount: 2, truncated: false });
    expect(context.pages.map((p) => context.text.slice(p.start, p.end))).toEqual(['Alpha', 'Beta']);
  });

  it('refuses a text that no longer matches its record, and a case never prepared', async () => {
    await writeSourceCase(data, 'notes', 'notes.md', '# Notes');
    const prepared = await prepareSourceContext(layout, await loadSourceCase(data, 'notes'));
    await writeFile(prepared.contextFile, '# Edited');
    const error = await readSourceContext(layout, 'notes').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/source_context\.txt: does not match .*source_context\.json/);
    await expect(readSourceContext(layout, 'never')).rejects.toThrow(/source_context\.json: file not found/);
  });

  it('keeps the retained source stage 1 decided when a later stage does not say (keepSourceSelection)', async () => {
    const pages = Array.from({ length: 6 }, (_, i) => [`Page ${i + 1} body text about topic ${i + 1}.`]);
    await writeSourceCase(data, 'book', 'book.pdf', buildTextPdf(pages));
    const sourceCase = await loadSourceCase(data, 'book');
    const first = await prepareSourceContext(layout, sourceCase, { maxChars: 60, pages: '2-3,5, 3' });
    expect(first.extracted.text.startsWith('Page 2 body')).toBe(true);
    expect(first.extracted.text.length).toBe(60);
    expect(first.extracted.pages.map((span) => span.page)).toEqual([2, 3]);
    const meta = await readJson(sourceContextMetaFile(layout, 'book'), sourceContextSchema);
    expect(meta).toMatchObject({ max_chars: 60, page_range: '2-3,5', page_count: 6, truncated: true });

    // A later stage that passes nothing keeps it (without keepSourceSelection the defaults come back).
    const later = await prepareSourceContext(layout, sourceCase, { keepSourceSelection: true });
    expect(later.skipped).toBe(true);
    expect(later.extracted.text).toBe(first.extracted.text);
    // …also when the context must be redone (here: forced), the recorded selection is used again.
    const redone = await prepareSourceContext(layout, sourceCase, { keepSourceSelection: true, force: true });
    expect(redone.skipped).toBe(false);
    expect(redone.extracted.text).toBe(first.extracted.text);
    // A given value re-decides, and is kept in turn.
    const wider = await prepareSourceContext(layout, sourceCase, {
      keepSourceSelection: true,
      maxChars: 500,
    });
    expect(wider.extracted.text).toContain('Page 5 body');
    expect(wider.extracted.text).not.toContain('Page 4 body');
    expect((await readJson(sourceContextMetaFile(layout, 'book'), sourceContextSchema)).page_range).toBe(
      '2-3,5',
    );
    const whole = await prepareSourceContext(layout, sourceCase);
    expect(whole.extracted.text).toContain('Page 6 body');
    expect((await readJson(sourceContextMetaFile(layout, 'book'), sourceContextSchema)).page_range).toBe(
      undefined,
    );
  });

  it('refuses a page range the PDF does not have, as a usage error, writing nothing', async () => {
    await writeSourceCase(data, 'short', 'short.pdf', buildTextPdf([['one'], ['two']]));
    const sourceCase = await loadSourceCase(data, 'short');
    const error = await prepareSourceContext(layout, sourceCase, { pages: '1-5' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'usage' });
    expect((error as Error).message).toMatch(/has 2 pages, so page 3 does not exist/);
    await expect(stat(layout.sourceContextFile('short'))).rejects.toThrow();
    for (const bad of ['0', '5-2', '1-', 'a'])
      await expect(prepareSourceContext(layout, sourceCase, { pages: bad })).rejects.toMatchObject({
        kind: 'usage',
      });
  });
});
