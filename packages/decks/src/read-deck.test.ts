import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZip, deckSchema, InputError, ZipArchive } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countVisibleWords } from './count-visible-words';
import { readDeck } from './read-deck';
import { buildTestPptx } from './testing';

const corpusDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-decks-'));
});
afterEach(async () => cleanup());

async function writeDeck(name: string, bytes: Buffer): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, bytes);
  return file;
}

describe('readDeck on PPTX', () => {
  it('orders slides by the presentation id list, not by part file names', async () => {
    const file = await writeDeck(
      'order.pptx',
      buildTestPptx({
        slides: [
          { fileNumber: 1, title: 'Written first', bullets: ['alpha'] },
          { fileNumber: 2, title: 'Shown first', bullets: ['beta'] },
        ],
        order: [2, 1],
      }),
    );
    const deck = await readDeck(file);
    expect(deck.slides.map((slide) => slide.title)).toEqual(['Shown first', 'Written first']);
    expect(deck.slides.map((slide) => slide.index)).toEqual([1, 2]);
    expect(deckSchema.parse(deck)).toBeTruthy();
  });

  it('keeps speaker notes out of visible text and the word count', async () => {
    const file = await writeDeck(
      'notes.pptx',
      buildTestPptx({
        slides: [{ fileNumber: 1, title: 'Plan', notes: 'secret speaker remark with many words' }],
      }),
    );
    const deck = await readDeck(file);
    expect(deck.slides[0]?.notes).toBe('secret speaker remark with many words');
    expect(deck.slides[0]?.visible_text).toBe('Plan');
    expect(deck.visible_word_count).toBe(1);
  });

  it('resolves font sizes from runs, then the master text styles, and counts inherited bullets', async () => {
    const file = await writeDeck(
      'sizes.pptx',
      buildTestPptx({
        slides: [
          {
            fileNumber: 1,
            title: 'Sizes',
            bullets: ['one', 'two'],
            textBox: { text: 'small print', sizePt: 9 },
          },
        ],
      }),
    );
    const [title, body, box] = (await readDeck(file)).slides[0]?.elements ?? [];
    expect(title?.font_sizes).toEqual([44]);
    expect(body?.font_sizes).toEqual([32, 32]);
    expect(body?.bullet_count).toBe(2);
    expect(box?.font_sizes).toEqual([9]);
    expect(box?.placeholder).toBe(false);
    expect(box?.bbox).toEqual({ x: 72, y: 468, width: 288, height: 36 });
  });

  it('maps group child coordinates onto the slide, skips hidden shapes, reads tables and AlternateContent fallbacks', async () => {
    const textShape = (id: number, text: string, box: string, extra = '') =>
      `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="s${id}"${extra}/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm>${box}</a:xfrm></p:spPr><p:txBody><a:bodyPr><a:normAutofit fontScale="50000"/></a:bodyPr><a:p><a:r><a:rPr sz="2400"/><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
    const group = `<p:grpSp><p:nvGrpSpPr><p:cNvPr id="10" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="127000" y="254000"/><a:ext cx="2540000" cy="2540000"/><a:chOff x="0" y="0"/><a:chExt cx="1270000" cy="1270000"/></a:xfrm></p:grpSpPr>${textShape(11, 'inside', '<a:off x="635000" y="0"/><a:ext cx="127000" cy="254000"/>')}${textShape(12, 'secret', '<a:off x="0" y="0"/><a:ext cx="1" cy="1"/>', ' hidden="1"')}</p:grpSp>`;
    const table = `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="20" name="t"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/><a:ext cx="1270000" cy="1270000"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tr><a:tc gridSpan="2"><a:txBody><a:bodyPr/><a:p><a:r><a:t>wide</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:bodyPr/><a:p><a:r><a:t>ghost</a:t></a:r></a:p></a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>a</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>b</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
    const alternate = `<mc:AlternateContent><mc:Choice Requires="x">${textShape(30, 'newer', '<a:off x="0" y="0"/><a:ext cx="1" cy="1"/>')}</mc:Choice><mc:Fallback>${textShape(31, 'fallback', '<a:off x="0" y="0"/><a:ext cx="1" cy="1"/>')}</mc:Fallback></mc:AlternateContent>`;
    const file = await writeDeck(
      'shapes.pptx',
      buildTestPptx({
        slides: [{ fileNumber: 1, title: 'Shapes', extraShapesXml: group + table + alternate }],
      }),
    );
    const slide = (await readDeck(file)).slides[0];
    const [, groupElement, tableElement, fallback] = slide?.elements ?? [];
    expect(groupElement?.kind).toBe('group');
    expect(groupElement?.children).toHaveLength(1);
    // Child at x=635000 in a 2x-scaled group placed at (127000, 254000) EMU: 10 + 50*2 = 110 pt, 20 pt down.
    expect(groupElement?.children?.[0]).toMatchObject({
      text: 'inside',
      bbox: { x: 110, y: 20, width: 20, height: 40 },
      font_sizes: [12],
    });
    expect(tableElement).toMatchObject({ kind: 'table', text: 'wide\na | b' });
    expect(fallback?.text).toBe('fallback');
    expect(slide?.visible_text).not.toContain('secret');
    expect(slide?.visible_text).not.toContain('ghost');
  });

  it('keeps a listed slide whose part is missing as an empty slide with a warning', async () => {
    const file = await writeDeck(
      'missing.pptx',
      buildTestPptx({
        slides: [
          { fileNumber: 1, title: 'Present' },
          { fileNumber: 2, title: 'Gone' },
        ],
        missingParts: [2],
      }),
    );
    const deck = await readDeck(file);
    expect(deck.slide_count).toBe(2);
    expect(deck.slides[0]?.title).toBe('Present');
    expect(deck.slides[1]?.visible_text).toBe('');
    expect(deck.warnings.join(' ')).toMatch(/slide 2: its part .* is missing/);
  });

  it('refuses a zip bomb entry at the inflate limit instead of filling memory', async () => {
    const bomb = Buffer.alloc(40 * 1024 * 1024, 0x20);
    const file = await writeDeck(
      'bomb.pptx',
      buildZip([
        { name: '_rels/.rels', data: '<Relationships/>' },
        { name: 'ppt/presentation.xml', data: bomb },
      ]),
    );
    await expect(readDeck(file)).rejects.toThrow(/inflates past \d+ bytes/);
    await expect(readDeck(file, { zipLimits: { maxEntryBytes: 1024 } })).rejects.toBeInstanceOf(InputError);
  });

  it('refuses a huge slide XML part and a nesting bomb with a clear reason, quickly', async () => {
    const good = unzipForTest(buildTestPptx({ slides: [{ fileNumber: 1, title: 'x' }] }));
    const withSlide = (xml: string) =>
      buildZip(
        good.map((entry) =>
          entry.name === 'ppt/slides/slide1.xml' ? { name: entry.name, data: xml } : entry,
        ),
      );
    const shape = '<p:sp><p:txBody><a:p><a:r><a:t>word</a:t></a:r></a:p></p:txBody></p:sp>';
    const huge = await writeDeck(
      'huge.pptx',
      withSlide(`<p:sld><p:cSld><p:spTree>${shape.repeat(130_000)}</p:spTree></p:cSld></p:sld>`),
    );
    await expect(readDeck(huge)).rejects.toThrow(/slide1\.xml inflates past 8388608 bytes/);
    const nested = await writeDeck(
      'nested.pptx',
      withSlide(
        `<p:sld><p:cSld><p:spTree>${'<p:grpSp>'.repeat(100_000)}${'</p:grpSp>'.repeat(100_000)}</p:spTree></p:cSld></p:sld>`,
      ),
    );
    const started = performance.now();
    await expect(readDeck(nested)).rejects.toThrow(
      `${nested}: cannot read the deck: Maximum nested tags exceeded`,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('caps the total inflated bytes across parts', async () => {
    const part = Buffer.alloc(600 * 1024, 0x20);
    const file = await writeDeck(
      'many.pptx',
      buildZip([
        { name: '_rels/.rels', data: '<Relationships/>' },
        { name: 'ppt/presentation.xml', data: part },
      ]),
    );
    await expect(readDeck(file, { zipLimits: { maxTotalBytes: 100 * 1024 } })).rejects.toThrow(/in total/);
  });

  it('names the reason for files that are not decks, empty, encrypted or missing', async () => {
    const text = await writeDeck('notes.pptx', Buffer.from('just some text'));
    await expect(readDeck(text)).rejects.toThrow(`${text}: not a deck`);
    const tiny = await writeDeck('tiny.pptx', Buffer.from('PK'));
    await expect(readDeck(tiny)).rejects.toThrow(`${tiny}: not a deck`);
    const empty = await writeDeck('empty.pptx', Buffer.alloc(0));
    await expect(readDeck(empty)).rejects.toThrow(/the file is empty/);
    const ole = await writeDeck('locked.pptx', Buffer.from('d0cf11e0a1b11ae1000000000000', 'hex'));
    await expect(readDeck(ole)).rejects.toThrow(/password-protected/);
    await expect(readDeck(join(dir, 'absent.pptx'))).rejects.toThrow(/cannot open the deck/);
    const truncated = await writeDeck('cut.pptx', Buffer.from('PK\u0003\u0004 broken archive'));
    await expect(readDeck(truncated)).rejects.toThrow(/not a valid ZIP archive/);
  });

  it('ignores path-traversal entry names and says so', async () => {
    const good = buildTestPptx({ slides: [{ fileNumber: 1, title: 'Safe' }] });
    // Rebuild with one extra hostile entry name next to the real parts.
    const file = await writeDeck(
      'traversal.pptx',
      buildZip([{ name: '../../etc/evil.xml', data: '<x/>' }, ...unzipForTest(good)]),
    );
    const deck = await readDeck(file);
    expect(deck.slides[0]?.title).toBe('Safe');
    expect(deck.warnings.join(' ')).toMatch(/unsafe path names/);
  });
});

/** The entries of an archive, re-read for composing fixtures. */
function unzipForTest(zip: Buffer): Array<{ name: string; data: Buffer }> {
  const archive = ZipArchive.open(zip, 'fixture.zip');
  return archive.names().map((name) => ({ name, data: archive.read(name)! }));
}

describe('readDeck on PDF', () => {
  const fixture = resolve(
    dirname(fileURLToPath(import.meta.url)),
    '../../../fixtures/decks/notebooklm/cs_raft_consensus.pdf',
  );

  it('reads pages as slides with titles from the largest top text, bullets and top-left boxes', async () => {
    const deck = await readDeck(fixture);
    expect(deck.slide_count).toBe(6);
    expect(deck.slide_width).toBe(720);
    expect(deck.slides.map((slide) => slide.title)).toEqual([
      'Raft in five minutes',
      'What Raft is for',
      'Majorities make progress',
      'Electing a leader',
      'Replicating the log',
      'Where Raft runs today',
    ]);
    const second = deck.slides[1];
    expect(second?.elements.reduce((sum, element) => sum + (element.bullet_count ?? 0), 0)).toBe(3);
    const [title, firstBullet] = second?.elements ?? [];
    expect(title?.font_sizes[0]).toBeCloseTo(30, 0);
    expect(firstBullet?.font_sizes[0]).toBeCloseTo(20, 0);
    expect((title?.bbox?.y ?? 0) < (firstBullet?.bbox?.y ?? 0)).toBe(true);
    expect(deck.slides[5]?.visible_text).toContain('etcd Key-value store behind Kubernetes');
  });

  it('reads by content, not by name, and says so when they disagree', async () => {
    const file = await writeDeck('exported.pptx', await readFile(fixture));
    const deck = await readDeck(file);
    expect(deck.format).toBe('pdf');
    expect(deck.warnings).toContain('the file is named .pptx but its content is PDF; read as PDF');
  });

  it('names the reason for a corrupt PDF', async () => {
    const file = await writeDeck('broken.pdf', Buffer.from('%PDF-1.4 nothing else'));
    await expect(readDeck(file)).rejects.toThrow(`${file}: not a readable PDF`);
  });
});

describe('countVisibleWords', () => {
  it('counts Latin words by whitespace and each Han/Kana character as a word', () => {
    expect(countVisibleWords('State-of-the-art results — 3.5 x faster • really')).toBe(6);
    expect(countVisibleWords('深度学习模型')).toBe(6);
    expect(countVisibleWords('AI モデル 2024')).toBe(5);
    expect(countVisibleWords('한국어 문장 예시')).toBe(3);
    expect(countVisibleWords('  - • ')).toBe(0);
  });
});

// The shared corpus lives next to the repo on the dev machine only; a user's clone has none.
describe.skipIf(!existsSync(corpusDir))('readDeck on the shared corpus', () => {
  const expectedSlides: Record<string, number> = {
    'ph-populated-placeholders.pptx': 9,
    'txt-font-props.pptx': 5,
    'shp-pos-and-size.pptx': 3,
    'sld-slides.pptx': 3,
    'tbl-cell.pptx': 3,
    'shp-picture.pptx': 2,
    'prs-notes.pptx': 1,
    'cht-charts.pptx': 1,
    'shp-groupshape.pptx': 1,
    'test.pptx': 1,
    'test_slides.pptx': 1,
    'missing_rels_item.pptx': 1,
    'no-slides.pptx': 0,
    'minimal-document.pdf': 1,
    '002-trivial-libre-office-writer.pdf': 1,
    'pdflatex-4-pages.pdf': 4,
    'pdflatex-outline.pdf': 4,
    'pdflatex-image.pdf': 1,
    'imagemagick-images.pdf': 6,
    'google-doc-document.pdf': 1,
    'habibi.pdf': 1,
    'crazyones-pdfa.pdf': 1,
    'pdfkit.pdf': 1,
    'multicolumn.pdf': 3,
    'GeoTopo-komprimiert.pdf': 117,
  };

  for (const [name, slides] of Object.entries(expectedSlides)) {
    // Speed is measured by `pnpm --filter @xsb/decks bench` (read-deck.bench.ts), not asserted here.
    it(`reads ${name} with ${slides} slides`, async () => {
      const file = join(corpusDir, name.endsWith('.pdf') ? 'pdf' : 'pptx', name);
      const deck = await readDeck(file);
      expect(deck.slide_count).toBe(slides);
      expect(deckSchema.safeParse(deck).success).toBe(true);
    });
  }

  it('fails the encrypted PDF with a password-protected reason', async () => {
    const file = join(corpusDir, 'pdf', 'libreoffice-writer-password.pdf');
    await expect(readDeck(file)).rejects.toThrow(`${file}: the PDF is password-protected`);
  });

  it('keeps prs-notes.pptx notes out of the visible words', async () => {
    const deck = await readDeck(join(corpusDir, 'pptx', 'prs-notes.pptx'));
    expect(deck.slides[0]?.notes).not.toBe('');
    expect(deck.slides[0]?.visible_text).not.toContain(deck.slides[0]?.notes);
    expect(deck.visible_word_count).toBe(0);
  });

  it('reads chart titles and series, table cells and inherited placeholder geometry', async () => {
    const charts = await readDeck(join(corpusDir, 'pptx', 'cht-charts.pptx'));
    expect(charts.slides[0]?.elements[0]?.kind).toBe('chart');
    expect(charts.slides[0]?.visible_text).toContain('Series 1: Category 1 4.3');
    const tables = await readDeck(join(corpusDir, 'pptx', 'tbl-cell.pptx'));
    expect(tables.slides[2]?.visible_text).toBe('a | b | c\nd | e | f\ng | h | i');
    const placeholders = await readDeck(join(corpusDir, 'pptx', 'ph-populated-placeholders.pptx'));
    const picture = placeholders.slides[0]?.elements[0];
    expect(picture?.kind).toBe('picture');
    expect(picture?.placeholder).toBe(true);
    expect(picture?.bbox).not.toBeNull();
    expect(placeholders.slides[4]?.title).toBe('Title Text');
    expect(placeholders.slides[4]?.elements[0]?.font_sizes).toEqual([44]);
  });

  it('warns that an image-only PDF has no text layer', async () => {
    const deck = await readDeck(join(corpusDir, 'pdf', 'imagemagick-images.pdf'));
    expect(deck.visible_word_count).toBe(0);
    expect(deck.warnings.join(' ')).toMatch(/no page has a text layer/);
  });

  it('gives PDF text items positions from the top-left and font sizes', async () => {
    const deck = await readDeck(join(corpusDir, 'pdf', 'pdflatex-4-pages.pdf'));
    const first = deck.slides[0]?.elements[0];
    expect(deck.slide_height).toBeGreaterThan(700);
    expect(first?.bbox?.y).toBeGreaterThanOrEqual(0);
    expect(first?.bbox?.y).toBeLessThan((deck.slide_height ?? 0) / 3);
    expect(first?.font_sizes.every((size) => size > 4 && size < 40)).toBe(true);
  });
});
