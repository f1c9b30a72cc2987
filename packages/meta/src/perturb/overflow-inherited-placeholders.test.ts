import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZip, type Deck, ZipArchive } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { convertPptxToPdf, findSoffice, readDeck } from '@xsb/decks';
import { buildTestPptx } from '@xsb/decks/testing';
import { runLayoutChecks } from '@xsb/rubric';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PerturbationRecord } from '../schemas/meta-perturbation';
import { perturbDeck } from './perturb-deck';

const here = dirname(fileURLToPath(import.meta.url));
const corpusDeck = resolve(here, '../../../../../shared/corpus/pptx/ph-populated-placeholders.pptx');
const EMU = 12_700;
const SLIDE_WIDTH = 9_144_000;

type Box = { x: number; y: number; cx: number; cy: number };
const LAYOUT_TITLE: Box = { x: 457_200, y: 274_638, cx: 8_229_600, cy: 1_143_000 };
const LAYOUT_BODY: Box = { x: 457_200, y: 1_600_200, cx: 8_229_600, cy: 4_525_963 };
const MASTER_BODY: Box = { x: 685_800, y: 1_828_800, cx: 7_772_400, cy: 3_657_600 };
const OWN_BOX: Box = { x: 914_400, y: 5_943_600, cx: 3_657_600, cy: 457_200 };

const xfrm = (box: Box) =>
  `<a:xfrm><a:off x="${box.x}" y="${box.y}"/><a:ext cx="${box.cx}" cy="${box.cy}"/></a:xfrm>`;

function placeholder(name: string, ph: string, spPr: string, paragraphs: string[] = []): string {
  const body = paragraphs
    .map((text) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${text}</a:t></a:r></a:p>`)
    .join('');
  return `<p:sp><p:nvSpPr><p:cNvPr id="${name.length}" name="${name}"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr>${spPr}<p:txBody><a:bodyPr/><a:lstStyle/>${body || '<a:p/>'}</p:txBody></p:sp>`;
}

const intoTree = (xml: string, shapes: string) =>
  xml.replace('<p:grpSpPr/></p:spTree>', `<p:grpSpPr/>${shapes}</p:spTree>`);

/**
 * A deck made the way PowerPoint makes one from a template: the layout positions the title and the
 * body placeholder, the master the body family; the slides' placeholders carry no `a:xfrm` (one has
 * `<p:spPr/>`, one a `p:spPr` with only a preset geometry), and slide 3 adds a text box with its own.
 */
function templateDeck(): Buffer {
  const base = buildTestPptx({
    slides: [{ fileNumber: 1, title: 'Yield study' }, { fileNumber: 2 }, { fileNumber: 3 }],
  });
  const zip = ZipArchive.open(base, 'template.pptx');
  const parts: Record<string, string> = {
    'ppt/slideLayouts/slideLayout1.xml': intoTree(
      zip.readText('ppt/slideLayouts/slideLayout1.xml')!,
      placeholder('Title 1', '<p:ph type="title"/>', `<p:spPr>${xfrm(LAYOUT_TITLE)}</p:spPr>`) +
        placeholder('Content 2', '<p:ph idx="1"/>', `<p:spPr>${xfrm(LAYOUT_BODY)}</p:spPr>`),
    ),
    'ppt/slideMasters/slideMaster1.xml': intoTree(
      zip.readText('ppt/slideMasters/slideMaster1.xml')!,
      placeholder('Title 1', '<p:ph type="title"/>', `<p:spPr>${xfrm(LAYOUT_TITLE)}</p:spPr>`) +
        placeholder('Body 2', '<p:ph type="body" idx="1"/>', `<p:spPr>${xfrm(MASTER_BODY)}</p:spPr>`),
    ),
    'ppt/slides/slide2.xml': intoTree(
      zip.readText('ppt/slides/slide2.xml')!,
      placeholder('Title', '<p:ph type="title"/>', '<p:spPr/>', ['Results']) +
        placeholder('Body', '<p:ph idx="1"/>', '<p:spPr/>', [
          'Yield rose by 8 percent in the north.',
          'Rainfall explains most of it.',
        ]),
    ),
    'ppt/slides/slide3.xml': intoTree(
      zip.readText('ppt/slides/slide3.xml')!,
      placeholder('Title', '<p:ph type="title"/>', '<p:spPr/>', ['Method']) +
        // A subtitle the layout does not hold: its geometry comes from the master's body placeholder.
        placeholder(
          'Subtitle',
          '<p:ph type="subTitle" idx="5"/>',
          '<p:spPr bwMode="auto"><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>',
          ['We sampled 40 sites over two seasons.'],
        ) +
        placeholder('Own box', '', `<p:spPr>${xfrm(OWN_BOX)}</p:spPr>`, ['Data from the field survey.']),
    ),
  };
  return buildZip(zip.names().map((name) => ({ name, data: parts[name] ?? zip.read(name)! })));
}

const SHAPE_BY_OLD_BOX: Record<string, { name: string; from: 'layout' | 'master' | 'own' }> = {
  [JSON.stringify(LAYOUT_TITLE)]: { name: 'Title', from: 'layout' },
  [JSON.stringify(LAYOUT_BODY)]: { name: 'Body', from: 'layout' },
  [JSON.stringify(MASTER_BODY)]: { name: 'Subtitle', from: 'master' },
  [JSON.stringify(OWN_BOX)]: { name: 'Own box', from: 'own' },
};

function parseBox(text: string): Box {
  const value = (key: string) => Number(new RegExp(`\\b${key}=(-?\\d+)`).exec(text)![1]);
  return { x: value('x'), y: value('y'), cx: value('cx'), cy: value('cy') };
}

function shapeXml(slideXml: string, name: string): string {
  const match = new RegExp(`<p:sp><p:nvSpPr><p:cNvPr id="\\d+" name="${name}"/>.*?</p:sp>`).exec(slideXml);
  if (!match) throw new Error(`no shape ${name}`);
  return match[0];
}

const toPoints = (box: Box) => {
  const round = (value: number) => Math.round((value / EMU) * 100) / 100;
  return { x: round(box.x), y: round(box.y), width: round(box.cx), height: round(box.cy) };
};

let dir: string;
let cleanup: () => Promise<void>;
let deckFile: string;
let original: Deck;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-inherited-'));
  deckFile = join(dir, 'template.pptx');
  await writeFile(deckFile, templateDeck());
  original = await readDeck(deckFile);
});
afterAll(async () => cleanup());

describe('overflow_text on placeholders that inherit their geometry', () => {
  let item: PerturbationRecord;
  let written: ZipArchive;
  let moved: Deck;

  beforeAll(async () => {
    const out = join(dir, 'all');
    [item] = (await perturbDeck({ deck: deckFile, outDir: out, kinds: ['overflow_text'], severities: [1] }))
      .records as [PerturbationRecord];
    const file = join(out, item.output ?? 'missing');
    written = ZipArchive.open(await readFile(file), file);
    moved = await readDeck(file);
  });

  it('the original deck reads its placeholders at the layout and master boxes', () => {
    const boxes = original.slides.slice(1).map((slide) => slide.elements.map((element) => element.bbox));
    expect(boxes).toEqual([
      [toPoints(LAYOUT_TITLE), toPoints(LAYOUT_BODY)],
      [toPoints(LAYOUT_TITLE), toPoints(MASTER_BODY), toPoints(OWN_BOX)],
    ]);
  });

  it('perturbs every text shape of the content slides, inherited or not, and the read-back passes', () => {
    expect(item.skipped).toBeUndefined();
    expect(item.error).toBeUndefined();
    expect(item.eligible_units).toBe(5);
    expect(item.changed_units).toBe(5);
    expect(
      item.changes.map((change) => SHAPE_BY_OLD_BOX[JSON.stringify(parseBox(change.old))]?.name),
    ).toEqual(expect.arrayContaining(['Title', 'Body', 'Subtitle', 'Own box']));
  });

  it('writes the resolved box, moved as recorded, as the first child of the shape’s p:spPr', () => {
    const sources = item.changes.map(
      (change) => SHAPE_BY_OLD_BOX[JSON.stringify(parseBox(change.old))]?.from,
    );
    expect(sources.sort()).toEqual(['layout', 'layout', 'layout', 'master', 'own']);
    for (const change of item.changes) {
      const shape = SHAPE_BY_OLD_BOX[JSON.stringify(parseBox(change.old))]!;
      const xml = shapeXml(written.readText(`ppt/slides/slide${change.slide}.xml`)!, shape.name);
      const next = parseBox(change.new);
      expect(xml.match(/<a:xfrm>/g), `${shape.name}: exactly one xfrm`).toHaveLength(1);
      if (shape.from === 'own') {
        expect(xml).toContain(`<p:spPr>${xfrm(next)}</p:spPr>`);
        expect(change.detail).not.toMatch(/inherited/);
        continue;
      }
      expect(change.detail).toContain(`inherited from the slide ${shape.from}`);
      if (shape.name === 'Subtitle') {
        // The preset geometry stays; the xfrm goes first, where the schema wants it.
        expect(xml).toContain(
          `<p:spPr bwMode="auto">${xfrm(next)}<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>`,
        );
      } else {
        expect(xml).toContain(`<p:spPr>${xfrm(next)}</p:spPr>`);
      }
      if (/half off the right edge/.test(change.detail ?? '')) {
        const old = parseBox(change.old);
        expect(next).toEqual({ ...old, x: SLIDE_WIDTH - Math.floor(old.cx / 2) });
      }
    }
  });

  it('reads back with the same text, each moved shape where the record puts it, and its checks broken', () => {
    expect(moved.slides.map((slide) => slide.visible_text)).toEqual(
      original.slides.map((slide) => slide.visible_text),
    );
    expect(item.changes).toHaveLength(5);
    for (const change of item.changes) {
      const boxes = moved.slides[change.slide - 1]!.elements.map((element) => element.bbox);
      expect(boxes).toContainEqual(toPoints(parseBox(change.new)));
    }
    const passed = (deck: Deck) =>
      Object.fromEntries(runLayoutChecks(deck).map((check) => [check.id, check.passed]));
    expect(passed(original).off_slide).toBe(true);
    expect(passed(original).text_overlap).toBe(true);
    const broken = item.expected.lower.filter((id) => id.startsWith('layout.'));
    expect(broken.length).toBeGreaterThan(0);
    for (const id of broken) expect(passed(moved)[id.slice('layout.'.length)], id).toBe(false);
  });

  it('changes nothing else in the package: only the moved slides’ parts differ', () => {
    const source = ZipArchive.open(templateDeck(), 'template.pptx');
    const changed = new Set(item.changes.map((change) => `ppt/slides/slide${change.slide}.xml`));
    expect([...changed].sort()).toEqual(['ppt/slides/slide2.xml', 'ppt/slides/slide3.xml']);
    for (const name of source.names())
      expect(source.read(name)!.equals(written.read(name)!), name).toBe(!changed.has(name));
  });
});

describe('overflow_text on shapes with their own xfrm (unchanged behaviour)', () => {
  it('rewrites only the a:off / a:ext attributes in place and inserts no xfrm', async () => {
    const file = join(dir, 'own.pptx');
    await writeFile(
      file,
      buildTestPptx({
        slides: [
          { fileNumber: 1, title: 'Cover' },
          {
            fileNumber: 2,
            title: 'Results',
            bullets: ['Yield rose by 8 percent.'],
            textBox: { text: 'Field data', sizePt: 14 },
          },
        ],
      }),
    );
    const [item] = (
      await perturbDeck({ deck: file, outDir: join(dir, 'own'), kinds: ['overflow_text'], severities: [1] })
    ).records;
    expect(item!.changed_units).toBe(3);
    const out = ZipArchive.open(await readFile(join(dir, 'own', item!.output!)), 'out.pptx');
    const before = ZipArchive.open(await readFile(file), file).readText('ppt/slides/slide2.xml')!;
    const after = out.readText('ppt/slides/slide2.xml')!;
    const blank = (xml: string) =>
      xml.replace(/<a:off [^>]*\/>/g, '<a:off/>').replace(/<a:ext [^>]*\/>/g, '<a:ext/>');
    expect(after).not.toBe(before);
    expect(blank(after)).toBe(blank(before));
    for (const change of item!.changes) expect(change.detail).not.toMatch(/inherited/);
  });
});

describe.skipIf(!existsSync(corpusDeck))('on a deck made in PowerPoint (../shared/corpus)', () => {
  let soffice: string | undefined;
  try {
    soffice = findSoffice();
  } catch {
    soffice = undefined;
  }

  it('perturbs ph-populated-placeholders.pptx, whose text sits in inherited placeholders, and the result opens', async () => {
    const out = join(dir, 'corpus');
    const [item] = (
      await perturbDeck({ deck: corpusDeck, outDir: out, kinds: ['overflow_text'], severities: [1] })
    ).records;
    expect(item!.skipped).toBeUndefined();
    expect(item!.error).toBeUndefined();
    // Slides 6 and 7 hold text ("Content", "Body text"), both in placeholders with `<p:spPr/>`.
    expect(item!.changes.map((change) => change.slide)).toEqual([6, 7]);
    const before = await readDeck(corpusDeck);
    const file = join(out, item!.output!);
    const written = ZipArchive.open(await readFile(file), file);
    for (const change of item!.changes) {
      expect(toPoints(parseBox(change.old))).toEqual(before.slides[change.slide - 1]!.elements[0]!.bbox);
      expect(written.readText(`ppt/slides/slide${change.slide}.xml`)).toContain(
        `<p:spPr>${xfrm(parseBox(change.new))}</p:spPr>`,
      );
    }
    const after = await readDeck(file);
    expect(after.slides.map((slide) => slide.visible_text)).toEqual(
      before.slides.map((slide) => slide.visible_text),
    );
    if (!soffice) {
      console.warn('LibreOffice (soffice) is not installed: the PDF conversion check is skipped');
      return;
    }
    const pdf = join(out, 'converted.pdf');
    await convertPptxToPdf(file, pdf);
    expect((await readDeck(pdf)).slide_count).toBe(9);
  }, 180_000);
});
