import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZipArchive } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { placeholderGeometryResolver } from './placeholder-geometry';
import { readDeck } from './read-deck';
import { child, parseXml, path } from './xml-tree';

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';

function placeholder(ph: string, xfrm = ''): string {
  return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="ph"/><p:cNvSpPr/><p:nvPr>${ph}</p:nvPr></p:nvSpPr><p:spPr>${xfrm}</p:spPr></p:sp>`;
}

const xfrm = (x: number, y: number, cx: number, cy: number, attributes = '') =>
  `<a:xfrm${attributes}><a:off x="${x}" y="${y}"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm>`;

const part = (root: string, shapes: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:${root} ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:${root}>`;

const layoutXml = part(
  'sldLayout',
  placeholder('<p:ph type="title"/>', xfrm(10, 20, 300, 40)) +
    placeholder('<p:ph idx="1"/>', xfrm(10, 80, 300, 200, ' flipH="1"')) +
    placeholder('<p:ph type="body" idx="2"/>', xfrm(500, 80, 100, 100)) +
    // A layout placeholder without geometry of its own leaves the master's in force.
    placeholder('<p:ph type="dt" idx="3"/>'),
);
const masterXml = part(
  'sldMaster',
  placeholder('<p:ph type="title"/>', xfrm(1, 2, 3, 4)) +
    placeholder('<p:ph type="body" idx="1"/>', xfrm(5, 6, 7, 8)) +
    placeholder('<p:ph type="dt" idx="2"/>', xfrm(9, 10, 11, 12)),
);

describe('placeholderGeometryResolver', () => {
  const resolve = placeholderGeometryResolver({ layoutXml, masterXml });

  it('takes the layout placeholder with the same idx first, then the same type', () => {
    expect(resolve({ type: 'obj', idx: '1' })).toEqual({
      x: 10,
      y: 80,
      cx: 300,
      cy: 200,
      attributes: { flipH: '1' },
      from: 'layout',
    });
    // idx 2 wins over the type: the body with idx 2, not the first body-like placeholder.
    expect(resolve({ type: 'body', idx: '2' })).toMatchObject({ x: 500, from: 'layout' });
    expect(resolve({ type: 'title', idx: undefined })).toMatchObject({ x: 10, y: 20, from: 'layout' });
  });

  it("falls back to the master placeholder of the same family when the layout's has no geometry or none exists", () => {
    expect(resolve({ type: 'dt', idx: '3' })).toEqual({
      x: 9,
      y: 10,
      cx: 11,
      cy: 12,
      attributes: {},
      from: 'master',
    });
    // A subtitle the layout does not hold inherits from the master's body placeholder.
    expect(resolve({ type: 'subTitle', idx: '9' })).toMatchObject({ x: 5, y: 6, from: 'master' });
    expect(
      placeholderGeometryResolver({ layoutXml: undefined, masterXml })({ type: 'ctrTitle', idx: undefined }),
    ).toMatchObject({ x: 1, from: 'master' });
  });

  it('answers undefined when neither part positions the placeholder', () => {
    expect(resolve({ type: 'sldNum', idx: '12' })).toBeUndefined();
    expect(
      placeholderGeometryResolver({ layoutXml: undefined, masterXml: undefined })({
        type: 'title',
        idx: undefined,
      }),
    ).toBeUndefined();
  });
});

const corpusDeck = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/corpus/pptx/ph-populated-placeholders.pptx',
);

describe.skipIf(!existsSync(corpusDeck))('on a deck made in PowerPoint (../shared/corpus)', () => {
  it('gives every inherited placeholder the box readDeck reports for it (ph-populated-placeholders.pptx)', async () => {
    const zip = ZipArchive.open(await readFile(corpusDeck), corpusDeck);
    const deck = await readDeck(corpusDeck);
    const related = (partName: string, kind: string) => {
      const rels = parseXml(
        zip.readText(posix.join(posix.dirname(partName), '_rels', `${posix.basename(partName)}.rels`)) ?? '',
      );
      const target = rels?.children.find((item) => item.attrs.Type?.endsWith(`/${kind}`))?.attrs.Target;
      return target ? posix.normalize(posix.join(posix.dirname(partName), target)) : undefined;
    };
    let inherited = 0;
    for (const [position, slide] of deck.slides.entries()) {
      const slidePart = `ppt/slides/slide${position + 1}.xml`;
      const layout = related(slidePart, 'slideLayout')!;
      const master = related(layout, 'slideMaster')!;
      const resolveBox = placeholderGeometryResolver({
        layoutXml: zip.readText(layout),
        masterXml: zip.readText(master),
      });
      const shapes = path(parseXml(zip.readText(slidePart)!), 'cSld', 'spTree')!.children.filter((item) =>
        ['sp', 'pic', 'graphicFrame'].includes(item.name),
      );
      shapes.forEach((shape, index) => {
        const ph = path(shape.children[0], 'nvPr', 'ph');
        if (!ph || path(shape, 'spPr', 'xfrm') || child(shape, 'xfrm')) return;
        const box = resolveBox({ type: ph.attrs.type ?? 'obj', idx: ph.attrs.idx });
        const points = (emu: number) => Math.round((emu / 12_700) * 100) / 100;
        expect(box, `slide ${position + 1}`).toBeDefined();
        expect(slide.elements[index]!.bbox, `slide ${position + 1}`).toEqual({
          x: points(box!.x),
          y: points(box!.y),
          width: points(box!.cx),
          height: points(box!.cy),
        });
        inherited += 1;
      });
    }
    // Slides 1, 2, 5, 6, 7 and 9; the graphic frames of 3, 4 and 8 carry their own p:xfrm.
    expect(inherited).toBe(6);
  });
});
