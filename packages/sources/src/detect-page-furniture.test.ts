import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectPageFurniture } from './detect-page-furniture';
import { extractSourceText } from './extract-source-text';
import { buildTextPdf } from './testing';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const corpusPdfDir = join(repoRoot, '../shared/corpus/pdf');

// Body text differs from page to page, as in a real document (digits aside, so that the
// digit-blind comparison of lines cannot mistake it for a running title).
const BODY = [
  [
    'The pilot replaced the gas boilers of 412 homes with air-source heat pumps.',
    'Households paid a fixed contribution.',
  ],
  [
    'Each home was fitted with a heat meter and a separate electricity meter.',
    'The median SPF rose in the second winter.',
  ],
  [
    'The distribution network operator monitored three substations.',
    'Peak demand stayed below rated capacity.',
  ],
  [
    'Set flow temperatures at or below 45 degrees at commissioning.',
    'Combine heat pumps with wall insulation.',
  ],
  ['Tariffs that charge less at night saved a further 140 euros.', 'Cylinders were pre-heated overnight.'],
  ['The office will extend the programme to further homes.', 'Low-income households pay a reduced share.'],
];
const body = (page: number) => BODY[page % BODY.length]!;

describe('detectPageFurniture', () => {
  it('marks a constant running title, a numbered footer and nothing of the body', () => {
    const pages = [1, 2, 3, 4].map((page) =>
      ['Riverton Annual Report 2024', ...body(page), `Page ${page} of 4`].join('\n'),
    );
    const found = detectPageFurniture(pages);
    expect(
      found.map((line) => [line.page, pages[line.page - 1]!.slice(line.start, line.end), line.kind]),
    ).toEqual(
      [1, 2, 3, 4].flatMap((page) => [
        [page, 'Riverton Annual Report 2024', 'running_header'],
        [page, `Page ${page} of 4`, 'page_number'],
      ]),
    );
  });

  it('follows a running title that changes with the chapter through the printed page number', () => {
    // A book whose pages carry "<printed number> <section title>", printed = page index - 2.
    const titles = ['1.1 ORIGINS', '1.1 ORIGINS', '1.2 GROWTH', '1.2 GROWTH', '2.1 LIMITS'];
    const pages = [
      'Contents\n1 Origins 3\n2 Limits 7',
      'Preface text that is long enough to be a paragraph of its own on this page.',
      ...titles.map((title, index) => `${index + 1} ${title}\n${body(index).join('\n')}`),
    ];
    const found = detectPageFurniture(pages);
    expect(found.map((line) => pages[line.page - 1]!.slice(line.start, line.end))).toEqual(
      titles.map((title, index) => `${index + 1} ${title}`),
    );
    expect(found.every((line) => line.kind === 'running_header')).toBe(true);
    // The contents page's "1 Origins 3" is on page 1 (printed -1): not a page number.
    expect(found.some((line) => line.page === 1)).toBe(false);
  });

  it('marks nothing under three pages, or where lines repeat on too few pages', () => {
    expect(detectPageFurniture(['Title\nBody one.\n1', 'Title\nBody two.\n2'])).toEqual([]);
    const pages = ['Draft', 'Intro', 'Methods', 'Results', 'Draft', 'Discussion', 'Summary'].map(
      (top, index) => `${top}\n${body(index).join('\n')}`,
    );
    // "Draft" heads 2 of 7 pages: under half, so it is body text.
    expect(detectPageFurniture(pages)).toEqual([]);
    // Short pages whose lines differ only in their numbers: body text, though every line is in a band.
    const templated = [1, 2, 3, 4].map(
      (n) => `Capacity grew by ${n * 10} percent in year ${n}.\nMeasured ${n + 3} times.`,
    );
    expect(detectPageFurniture(templated)).toEqual([]);
  });

  it('keeps the text and page spans of a PDF and records furniture offsets in the joined text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'xsb-furniture-'));
    try {
      const file = join(dir, 'report.pdf');
      const lines = [1, 2, 3].map((page) => ['Riverton Heat Pump Pilot', ...body(page), String(page)]);
      await writeFile(file, buildTextPdf(lines));
      const extracted = await extractSourceText({ sourceFile: file, sourceType: 'pdf' });
      expect(extracted.text).toBe(lines.map((page) => page.join('\n')).join('\n\n'));
      expect(extracted.pages.map((span) => span.page)).toEqual([1, 2, 3]);
      const marked = extracted.furniture.map((line) => [
        line.page,
        line.kind,
        extracted.text.slice(line.start, line.end),
      ]);
      expect(marked).toEqual([
        [1, 'running_header', 'Riverton Heat Pump Pilot'],
        [1, 'page_number', '1'],
        [2, 'running_header', 'Riverton Heat Pump Pilot'],
        [2, 'page_number', '2'],
        [3, 'running_header', 'Riverton Heat Pump Pilot'],
        [3, 'page_number', '3'],
      ]);
      for (const line of extracted.furniture) {
        const span = extracted.pages[line.page - 1]!;
        expect(line.start >= span.start && line.end <= span.end).toBe(true);
      }
      // A cut through the last page keeps only the whole furniture lines before it.
      const cut = await extractSourceText(
        { sourceFile: file, sourceType: 'pdf' },
        { maxChars: extracted.text.length - 1 },
      );
      expect(cut.furniture).toHaveLength(5);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!existsSync(corpusPdfDir))('detectPageFurniture on the shared PDF corpus', () => {
  let geoTopo: Awaited<ReturnType<typeof extractSourceText>>;
  beforeAll(async () => {
    geoTopo = await extractSourceText({
      sourceFile: join(corpusPdfDir, 'GeoTopo-komprimiert.pdf'),
      sourceType: 'pdf',
    });
  }, 60_000);
  afterAll(() => undefined);

  it('marks the running headers of GeoTopo (printed number + section title) and keeps the body', () => {
    const lineOf = (page: number) =>
      geoTopo.furniture
        .filter((line) => line.page === page)
        .map((line) => geoTopo.text.slice(line.start, line.end));
    expect(geoTopo.furniture.length).toBeGreaterThanOrEqual(100);
    expect(lineOf(7)).toEqual(['4 1.1. TOPOLOGISCHE RÄUME']);
    expect(lineOf(13)).toEqual(['10 1.3. STETIGKEIT']);
    expect(lineOf(104)).toEqual(['101 Lösungen der Übungsaufgaben']);
    // A chapter's first page has no running header; its title is body text.
    expect(lineOf(6)).toEqual([]);
    for (const line of geoTopo.furniture) {
      const text = geoTopo.text.slice(line.start, line.end);
      expect(line.kind).toBe('running_header');
      // The printed number is the page index minus 3 (title page, preface, contents).
      expect(text.startsWith(`${line.page - 3} `)).toBe(true);
    }
    // Marking changes no text: page 7 still starts with its header.
    const page7 = geoTopo.pages[6]!;
    expect(geoTopo.text.slice(page7.start, page7.end)).toMatch(/^4 1\.1\. TOPOLOGISCHE RÄUME\n/);
  });

  it('marks the bare page numbers of pdflatex-4-pages and nothing else', async () => {
    const extracted = await extractSourceText({
      sourceFile: join(corpusPdfDir, 'pdflatex-4-pages.pdf'),
      sourceType: 'pdf',
    });
    expect(
      extracted.furniture.map((line) => [line.page, line.kind, extracted.text.slice(line.start, line.end)]),
    ).toEqual([
      [1, 'page_number', '1'],
      [2, 'page_number', '2'],
      [3, 'page_number', '3'],
      [4, 'page_number', '4'],
    ]);
    for (const line of extracted.furniture) expect(line.end).toBe(extracted.pages[line.page - 1]!.end);
  });
});
