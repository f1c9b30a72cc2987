import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hashBytes, InputError, UsageError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSourceCases, loadSourceCase } from './discover-source-cases';
import { clipToMaxChars, cutToMaxChars, extractSourceText } from './extract-source-text';
import { startFakeMineruServer } from './fake-mineru-server';
import { buildTextPdf, writeSourceCase } from './testing';

const fixturesData = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures');
let data: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const temp = await makeTempDir('xsb-extract-');
  data = join(temp.dir, 'data');
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

async function caseWith(file: string, content: string | Uint8Array, caseId = 'c1') {
  await writeSourceCase(data, caseId, file, content);
  return loadSourceCase(data, caseId);
}

describe('extractSourceText on the repository fixtures', () => {
  it('extracts the PDF, HTML and markdown fixtures with their parsers', async () => {
    const { cases, failures } = await discoverSourceCases(fixturesData);
    expect(failures).toEqual([]);
    const results = Object.fromEntries(
      await Promise.all(cases.map(async (c) => [c.caseId, await extractSourceText(c)] as const)),
    );
    const pdf = results.energy_heat_pump_pilot!;
    expect(pdf.parser).toBe('unpdf');
    expect(pdf.pageCount).toBe(3);
    expect(pdf.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(pdf.text.slice(pdf.pages[1]!.start, pdf.pages[1]!.end)).toMatch(/^3\. Measured performance/);
    expect(pdf.text.slice(pdf.pages[2]!.start, pdf.pages[2]!.end)).toMatch(/^4\. Grid impact/);
    expect(pdf.text).toContain('Seasonal performance factor (SPF)');

    const html = results.ocean_coral_bleaching!;
    expect(html.parser).toBe('html');
    expect(html.pages).toEqual([]);
    expect(html.text).toMatch(/^Coral bleaching explained: heat stress/);
    expect(html.text).toContain('Degree Heating Week (DHW)');
    expect(html.text).toContain('Level 2 | 8 | Severe bleaching, significant mortality');
    for (const chrome of [
      'Subscribe',
      'About us',
      'tracking code',
      'Read next',
      'All rights reserved',
      'enable JavaScript',
    ]) {
      expect(html.text).not.toContain(chrome);
    }

    const md = results.cs_raft_consensus!;
    expect(md.parser).toBe('markdown');
    expect(md.text).toMatch(/^# Raft: an understandable consensus algorithm/);
    expect(md.truncated).toBe(false);
    expect(md.originalChars).toBe(md.text.length);
  });
});

describe('extractSourceText', () => {
  it('applies maxChars after extraction and clips page spans to the kept text', async () => {
    const sourceCase = await caseWith(
      'a.pdf',
      buildTextPdf([['a'.repeat(30)], ['b'.repeat(30)], ['c'.repeat(30)]]),
    );
    const full = await extractSourceText(sourceCase);
    expect(full.text).toBe(`${'a'.repeat(30)}\n\n${'b'.repeat(30)}\n\n${'c'.repeat(30)}`);
    const cut = await extractSourceText(sourceCase, { maxChars: 40 });
    expect(cut.text).toBe(full.text.slice(0, 40));
    expect(cut.truncated).toBe(true);
    expect(cut.originalChars).toBe(94);
    expect(cut.pageCount).toBe(3);
    expect(cut.pages).toEqual([
      { page: 1, start: 0, end: 30 },
      { page: 2, start: 32, end: 40 },
    ]);
  });

  it('hashes the source bytes', async () => {
    const bytes = new TextEncoder().encode('# Title\n\nBody');
    const result = await extractSourceText(await caseWith('a.md', bytes));
    expect(result.sourceSha256).toBe(hashBytes(bytes));
  });

  it('refuses zero-byte sources, oversized sources and invalid UTF-8, naming the file', async () => {
    const empty = await caseWith('a.md', '');
    await expect(extractSourceText(empty)).rejects.toThrow(
      new RegExp(`^${empty.sourceFile}: the file is empty \\(0 bytes\\)`),
    );
    const big = await caseWith('a.txt', 'x'.repeat(2000), 'big');
    await expect(extractSourceText(big, { maxSourceBytes: 1000 })).rejects.toThrow(
      /too large \(2000 bytes; the limit is 1000 bytes\)/,
    );
    const page = await caseWith('a.html', `<main><p>${'x'.repeat(2000)}</p></main>`, 'page');
    await expect(extractSourceText(page, { maxHtmlBytes: 1000 })).rejects.toThrow(
      new RegExp(
        `^${page.sourceFile}: the HTML page is too large to read \\(2020 bytes; the limit for HTML is 1000 bytes\\)`,
      ),
    );
    expect((await extractSourceText(page)).text).toBe('x'.repeat(2000));
    const bad = await caseWith('a.txt', new Uint8Array([0x68, 0x69, 0xff]), 'bad');
    const error = await extractSourceText(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      `${bad.sourceFile}: file is not valid UTF-8 (save it as UTF-8 and retry)`,
    );
  });

  it('refuses a bad maxChars or PDF parser as a usage error', async () => {
    const sourceCase = await caseWith('a.md', '# x');
    await expect(extractSourceText(sourceCase, { maxChars: 0 })).rejects.toBeInstanceOf(UsageError);
    await expect(extractSourceText(sourceCase, { maxChars: 1.5 })).rejects.toBeInstanceOf(UsageError);
    const pdfCase = await loadSourceCase(data, 'c1');
    await expect(
      extractSourceText({ ...pdfCase, sourceType: 'pdf' }, { pdfParser: 'pymupdf' as 'unpdf' }),
    ).rejects.toThrow(/unknown PDF parser "pymupdf"/);
  });

  it('uses MinerU when chosen and records it as the parser (no page spans)', async () => {
    const server = await startFakeMineruServer({ markdown: '# From MinerU\n\nBody text.' });
    try {
      const sourceCase = await caseWith('a.pdf', buildTextPdf([['local text']]));
      const result = await extractSourceText(sourceCase, {
        pdfParser: 'mineru',
        env: { MINERU_API_URL: server.url },
      });
      expect(result).toMatchObject({
        parser: 'mineru',
        text: '# From MinerU\n\nBody text.',
        pages: [],
        pageCount: 0,
      });
    } finally {
      await server.close();
    }
  });
});

describe('cutToMaxChars', () => {
  it('never splits a surrogate pair', () => {
    expect(cutToMaxChars('ab😀c', 3)).toEqual({ text: 'ab', truncated: true });
    expect(cutToMaxChars('ab😀c', 4)).toEqual({ text: 'ab😀', truncated: true });
    expect(cutToMaxChars('abc', 3)).toEqual({ text: 'abc', truncated: false });
  });
});

it('has its fixtures in the repository', () => {
  expect(existsSync(join(fixturesData, 'sources', 'energy_heat_pump_pilot', 'source.pdf'))).toBe(true);
});

describe('clipToMaxChars', () => {
  it('keeps the pages that start inside the cut, clipped, and only furniture lines still whole', () => {
    const full = 'aaaa\nbbbb\ncccc';
    const spans = [
      { page: 1, start: 0, end: 5 },
      { page: 2, start: 5, end: 10 },
      { page: 3, start: 10, end: 14 },
    ];
    const furniture = [
      { page: 1, start: 0, end: 4, kind: 'running_header' as const },
      { page: 2, start: 5, end: 9, kind: 'running_header' as const },
    ];
    const clipped = clipToMaxChars({ full, spans, furniture }, 7);
    expect(clipped.text).toBe('aaaa\nbb');
    expect(clipped.truncated).toBe(true);
    expect(clipped.pages).toEqual([
      { page: 1, start: 0, end: 5 },
      { page: 2, start: 5, end: 7 },
    ]);
    expect(clipped.furniture).toEqual([furniture[0]]);
  });
  it('keeps the first page of an empty text', () => {
    expect(
      clipToMaxChars({ full: '', spans: [{ page: 1, start: 0, end: 0 }], furniture: [] }, 10).pages,
    ).toEqual([{ page: 1, start: 0, end: 0 }]);
  });
});
