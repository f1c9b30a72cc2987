import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { probeGenerationStatusSchema, readJson, sourceContextSchema } from '@xsb/core';
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
    expect(lines[4]).toBe('3 case(s): 3 prepared, 0 skipped, 0 failed');
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
    expect(second.stdout).toContain('3 case(s): 0 prepared, 3 skipped, 0 failed');
    const forced = await run(['sources', '--force', '--case', 'cs_raft_consensus']);
    expect(forced.stdout).toContain('1 case(s): 1 prepared, 0 skipped, 0 failed');
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
    ]);
    expect(rows[0]!.error).toMatch(new RegExp(`^${bad}: corrupt or not a PDF`));
    expect(rows[3]!.error).toMatch(/notes\.txt: file is not valid UTF-8/);
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
    expect(noEndpoint.stderr).toMatch(/needs MINERU_API_URL .* or MINERU_API_KEY/);
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
});
