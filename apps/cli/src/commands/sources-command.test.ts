import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildZip, probeGenerationStatusSchema, readJson } from '@xsb/core';
import { sourceContextSchema } from '@xsb/sources';
import { buildTextPdf, startFakeMineruServer, writeSourceCase } from '@xsb/sources/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runXsb, type XsbArgs } from '../testing-cli';
import { makeTempDirWithSources } from '../testing-fixtures';

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDirWithSources('xsb-sources-cli-'));
});
afterEach(() => cleanup());

const run = (args: XsbArgs, env: Record<string, string> = {}) => runXsb(args, { cwd: root, env });

describe('xsb sources', () => {
  it('prepares every fixture case, prints a table, and skips them all on a second run', async () => {
    const first = await run(['sources']);
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^case\s+type\s+parser\s+pages\s+chars\s+status$/);
    expect(lines[1]).toMatch(/^cs_raft_consensus\s+markdown\s+markdown\s+-\s+\d+\s+prepared$/);
    expect(lines[2]).toMatch(/^energy_heat_pump_pilot\s+pdf\s+unpdf\s+3\s+\d+\s+prepared$/);
    expect(lines[3]).toMatch(/^ocean_coral_bleaching\s+html\s+html\s+-\s+\d+\s+prepared$/);
    expect(lines[4]).toBe('3 cases: 3 prepared, 0 skipped, 0 failed');
    for (const id of ['cs_raft_consensus', 'energy_heat_pump_pilot', 'ocean_coral_bleaching']) {
      const meta = await readJson(
        join(root, 'data', 'probes', id, 'source_context.json'),
        sourceContextSchema,
      );
      const text = await readFile(join(root, 'data', 'probes', id, 'source_context.txt'), 'utf8');
      expect(meta.chars).toBe(text.length);
    }
    const second = await run(['sources']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('3 cases: 0 prepared, 3 skipped, 0 failed');
    const forced = await run(['sources', '--force', '--case', 'cs_raft_consensus']);
    expect(forced.stdout).toContain('1 case: 1 prepared, 0 skipped, 0 failed');
  });

  it('fails the bad case with exit 1, names the file and reason, and still prepares the rest', async () => {
    const data = join(root, 'data');
    const bad = await writeSourceCase(
      data,
      'broken_pdf',
      'paper.pdf',
      new TextEncoder().encode('%PDF-1.7 not really'),
    );
    await writeSourceCase(data, 'latin1_notes', 'notes.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    await writeSourceCase(data, 'scanned', 'scan.pdf', buildTextPdf([[], []]));
    const result = await run(['sources', '--json']);
    expect(result.code).toBe(1);
    const rows = JSON.parse(result.stdout) as Array<{
      case_id: string;
      status: string;
      error: string | null;
    }>;
    expect(rows.map((r) => [r.case_id, r.status])).toEqual([
      ['broken_pdf', 'failed'],
      ['cs_raft_consensus', 'prepared'],
      ['energy_heat_pump_pilot', 'prepared'],
      ['latin1_notes', 'failed'],
      ['ocean_coral_bleaching', 'prepared'],
      ['scanned', 'failed'],
    ]);
    expect(rows[0]!.error).toMatch(new RegExp(`^${bad}: corrupt or not a PDF`));
    expect(rows[3]!.error).toMatch(/notes\.txt: file is not valid UTF-8/);
    // The library says what to do; the CLI adds the flag that does it.
    expect(rows[5]!.error).toMatch(
      /scan\.pdf: the PDF has no text layer .*parse it with MinerU \(use --pdf-parser mineru\)$/,
    );
  });

  it('honours --data, comma-separated and repeated --case, and --source-chars', async () => {
    await cp(join(root, 'data'), join(root, 'other'), { recursive: true });
    const result = await run(
      'sources --data other --case cs_raft_consensus,ocean_coral_bleaching --case energy_heat_pump_pilot --source-chars 100 --json',
    );
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{ chars: number; truncated: boolean }>;
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatchObject({ chars: 100, truncated: true });
    const text = await readFile(
      join(root, 'other', 'probes', 'cs_raft_consensus', 'source_context.txt'),
      'utf8',
    );
    expect(text).toHaveLength(100);
  });

  it('uses MinerU for PDFs with --pdf-parser mineru and records it', async () => {
    const server = await startFakeMineruServer({ markdown: '# Heat pumps\n\nParsed by MinerU.' });
    try {
      const result = await run(
        ['sources', '--pdf-parser', 'mineru', '--case', 'energy_heat_pump_pilot', '--json'],
        {
          MINERU_API_URL: server.url,
          XSLIDESBENCH_MINERU_CACHE_DIR: join(root, 'mineru-cache'),
        },
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)[0]).toMatchObject({ parser: 'mineru', status: 'prepared' });
      const meta = await readJson(
        join(root, 'data', 'probes', 'energy_heat_pump_pilot', 'source_context.json'),
        sourceContextSchema,
      );
      expect(meta.parser).toBe('mineru');
      // XSLIDESBENCH_PDF_PARSER chooses MinerU too; the cached markdown answers without a request.
      const requestsBefore = server.requests.length;
      const viaEnv = await run(['sources', '--force', '--case', 'energy_heat_pump_pilot', '--json'], {
        MINERU_API_URL: server.url,
        XSLIDESBENCH_PDF_PARSER: 'mineru',
        XSLIDESBENCH_MINERU_CACHE_DIR: join(root, 'mineru-cache'),
      });
      expect(JSON.parse(viaEnv.stdout)[0]).toMatchObject({ parser: 'mineru', status: 'prepared' });
      expect(server.requests.length).toBe(requestsBefore);
      // Stage 2 uses the context stage 1 made: `xsb probes` without a parser setting keeps MinerU's text.
      const probes = await run(['probes', '--case', 'energy_heat_pump_pilot', '--json']);
      expect(probes.code).toBe(0);
      const status = await readJson(
        join(root, 'data', 'probes', 'energy_heat_pump_pilot', 'probe_generation_status.json'),
        probeGenerationStatusSchema,
      );
      expect(status).toMatchObject({ status: 'complete', parser: 'mineru' });
      expect(
        await readFile(join(root, 'data', 'probes', 'energy_heat_pump_pilot', 'source_context.txt'), 'utf8'),
      ).toBe('# Heat pumps\n\nParsed by MinerU.');
      // Switching back to unpdf in stage 1 is a settings change: the case is redone, not skipped.
      const back = await run(['sources', '--case', 'energy_heat_pump_pilot', '--json']);
      expect(JSON.parse(back.stdout)[0]).toMatchObject({ parser: 'unpdf', status: 'prepared', pages: 3 });
    } finally {
      await server.close();
    }
  });

  it('exits 2 for usage and configuration errors', async () => {
    const unknownCase = await run(['sources', '--case', 'nope']);
    expect(unknownCase.code).toBe(2);
    expect(unknownCase.stderr).toMatch(
      /ERROR: unknown case "nope" \(known: cs_raft_consensus, energy_heat_pump_pilot, ocean_coral_bleaching\)/,
    );
    expect((await run(['sources', '--source-chars', '0'])).code).toBe(2);
    expect((await run(['sources', '--source-chars', 'many'])).code).toBe(2);
    const parser = await run(['sources', '--pdf-parser', 'pymupdf']);
    expect(parser.code).toBe(2);
    expect(parser.stderr).toMatch(/pdfParser/);
    const missing = await run(['sources', '--data', 'nowhere']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nowhere\/sources: no such folder/);
    const noEndpoint = await run(['sources', '--pdf-parser', 'mineru']);
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.stderr).toMatch(
      /needs MINERU_API_URL .* or MINERU_API_KEY.*parse PDFs with unpdf \(or use --pdf-parser unpdf\)/,
    );
  });

  it('reads a case with a text file and a PDF built on the fly', async () => {
    await writeSourceCase(join(root, 'data'), 'tiny_pdf', 'tiny.pdf', buildTextPdf([['Only page']]));
    await writeFile(join(root, 'data', 'sources', 'tiny_pdf', 'source_metadata.json'), '{"scene": "demo"}');
    const result = await run(['sources', '--case', 'tiny_pdf', '--json']);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        case_id: 'tiny_pdf',
        source_type: 'pdf',
        parser: 'unpdf',
        pages: 1,
        chars: 9,
        truncated: false,
        status: 'prepared',
        error: null,
      },
    ]);
  });

  it('keeps the retained source of `xsb sources` (chars, pages) in a later `xsb probes` without the flags', async () => {
    const data = join(root, 'data');
    const pages = Array.from({ length: 5 }, (_, i) => [
      `Chapter ${i + 1}. The pilot heat pump number ${i + 1} reached a seasonal performance factor of 3.${i}.`,
    ]);
    await writeSourceCase(data, 'book', 'book.pdf', buildTextPdf(pages));
    const contextOf = () =>
      readJson(join(data, 'probes', 'book', 'source_context.json'), sourceContextSchema);
    const prepared = await run('sources --case book --pages 2-3,5 --source-chars 150 --json');
    expect(prepared.code).toBe(0);
    expect(await contextOf()).toMatchObject({
      page_range: '2-3,5',
      max_chars: 150,
      chars: 150,
      page_count: 5,
    });
    const text = await readFile(join(data, 'probes', 'book', 'source_context.txt'), 'utf8');
    expect(text.startsWith('Chapter 2.')).toBe(true);

    const probes = await run('probes --case book --json');
    expect(probes.code).toBe(0);
    expect(await contextOf()).toMatchObject({ page_range: '2-3,5', max_chars: 150, chars: 150 });
    expect(await readFile(join(data, 'probes', 'book', 'source_context.txt'), 'utf8')).toBe(text);
    const status = await readJson(
      join(data, 'probes', 'book', 'probe_generation_status.json'),
      probeGenerationStatusSchema,
    );
    expect(status.chunking.source_chars).toBe(150);

    // Given to `xsb probes`, the flags re-decide (and are kept in turn).
    expect((await run('probes --case book --pages 1 --source-chars 5000 --json')).code).toBe(0);
    expect(await contextOf()).toMatchObject({ page_range: '1', max_chars: 5000 });
    expect(await readFile(join(data, 'probes', 'book', 'source_context.txt'), 'utf8')).toMatch(
      /^Chapter 1\./,
    );
  });

  it('exits 2 for a page range that is malformed or beyond the PDF, writing nothing', async () => {
    const data = join(root, 'data');
    await writeSourceCase(data, 'short', 'short.pdf', buildTextPdf([['one'], ['two'], ['three']]));
    for (const [range, message] of [
      ['0', /--pages "0": pages are numbered from 1/],
      ['5-2', /--pages "5-2": the range 5-2 runs backwards/],
      ['1-9', /page range 1-9: .*short\.pdf has 3 pages, so page 4 does not exist/],
    ] as const) {
      const result = await run(['sources', '--case', 'short', '--pages', range]);
      expect(result.code, range).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await run(['probes', '--case', 'short', '--pages', '3-1'])).code).toBe(2);
    await expect(readFile(join(data, 'probes', 'short', 'source_context.txt'))).rejects.toThrow();
  });

  it('reads .docx, .odt and .pptx sources (no "set source_type" detour)', async () => {
    const data = join(root, 'data');
    const docx = buildZip([
      {
        name: 'word/document.xml',
        data: '<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Heat pumps cut emissions by 40 percent.</w:t></w:r></w:p></w:body></w:document>',
      },
    ]);
    const odt = buildZip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
      {
        name: 'content.xml',
        data: '<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text><text:p>Coral bleaching follows heat stress.</text:p></office:text></office:body></office:document-content>',
      },
    ]);
    const pptx = buildZip([
      {
        name: 'ppt/slides/slide1.xml',
        data: '<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Raft elects one leader per term.</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>',
      },
    ]);
    await writeSourceCase(data, 'word_doc', 'report.docx', docx);
    await writeSourceCase(data, 'writer_doc', 'notes.odt', odt);
    await writeSourceCase(data, 'slides', 'talk.pptx', pptx);
    const result = await run('sources --case word_doc,writer_doc,slides --json');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Array<{
      case_id: string;
      source_type: string;
      parser: string;
      status: string;
    }>;
    expect(rows.map((row) => [row.case_id, row.source_type, row.parser, row.status])).toEqual([
      ['slides', 'pptx', 'pptx', 'prepared'],
      ['word_doc', 'docx', 'docx', 'prepared'],
      ['writer_doc', 'odt', 'odt', 'prepared'],
    ]);
    expect(await readFile(join(data, 'probes', 'word_doc', 'source_context.txt'), 'utf8')).toBe(
      'Heat pumps cut emissions by 40 percent.',
    );
  });
});
