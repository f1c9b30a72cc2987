import { buildZip, type ZipEntryInput } from '@xsb/core';

export interface TestSlide {
  /** The slide's part file name number: `ppt/slides/slide<fileNumber>.xml`. */
  fileNumber: number;
  title?: string;
  /** Body paragraphs (one bullet each in the body placeholder). */
  bullets?: string[];
  /** A free text box with an explicit size in points. */
  textBox?: { text: string; sizePt: number };
  notes?: string;
  /** Raw `p:spTree` children appended after the other shapes (groups, tables, hostile markup). */
  extraShapesXml?: string;
}

export interface TestPptxOptions {
  slides: TestSlide[];
  /** The order of the slide id list, as file numbers; defaults to the order of `slides`. */
  order?: number[];
  /** File numbers listed in the id list whose slide part is left out of the package. */
  missingParts?: number[];
}

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function rels(items: Array<{ id: string; type: string; target: string }>): string {
  const body = items
    .map((item) => `<Relationship Id="${item.id}" Type="${REL}/${item.type}" Target="${item.target}"/>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${body}</Relationships>`;
}

function placeholderShape(
  id: number,
  type: string,
  paragraphs: string[],
  box: [number, number, number, number],
): string {
  const [x, y, cx, cy] = box;
  const ps = paragraphs
    .map((text) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${escapeXml(text)}</a:t></a:r></a:p>`)
    .join('');
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${type} ${id}"/><p:cNvSpPr/><p:nvPr><p:ph type="${type}"${type === 'body' ? ' idx="1"' : ''}/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="${x}" y="${y}"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>${ps || '<a:p/>'}</p:txBody></p:sp>`;
}

function slideXml(slide: TestSlide): string {
  const shapes: string[] = [];
  if (slide.title !== undefined)
    shapes.push(placeholderShape(2, 'title', [slide.title], [457200, 274638, 8229600, 1143000]));
  if (slide.bullets)
    shapes.push(placeholderShape(3, 'body', slide.bullets, [457200, 1600200, 8229600, 4525963]));
  if (slide.textBox) {
    shapes.push(
      `<p:sp><p:nvSpPr><p:cNvPr id="4" name="TextBox 4"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="914400" y="5943600"/><a:ext cx="3657600" cy="457200"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="${Math.round(slide.textBox.sizePt * 100)}"/><a:t>${escapeXml(slide.textBox.text)}</a:t></a:r></a:p></p:txBody></p:sp>`,
    );
  }
  if (slide.extraShapesXml) shapes.push(slide.extraShapesXml);
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld ${NS} xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes.join('')}</p:spTree></p:cSld></p:sld>`;
}

function notesXml(text: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:notes ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${placeholderShape(2, 'sldImg', [], [0, 0, 100, 100])}${placeholderShape(3, 'body', [text], [0, 0, 100, 100])}</p:spTree></p:cSld></p:notes>`;
}

const MASTER = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sldMaster ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst><p:txStyles><p:titleStyle><a:lvl1pPr><a:defRPr sz="4400"/></a:lvl1pPr></p:titleStyle><p:bodyStyle><a:lvl1pPr><a:buChar char="•"/><a:defRPr sz="3200"/></a:lvl1pPr></p:bodyStyle><p:otherStyle><a:lvl1pPr><a:defRPr sz="1800"/></a:lvl1pPr></p:otherStyle></p:txStyles></p:sldMaster>`;
const LAYOUT = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sldLayout ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/></p:spTree></p:cSld></p:sldLayout>`;

/**
 * A small but valid PPTX built by hand (title + bulleted body placeholders, optional sized text box and
 * speaker notes), with full control over the slide id list order and missing parts — the cases
 * generators never produce but readers must handle.
 */
export function buildTestPptx(options: TestPptxOptions): Buffer {
  const order = options.order ?? options.slides.map((slide) => slide.fileNumber);
  const missing = new Set(options.missingParts ?? []);
  const entries: ZipEntryInput[] = [];
  const overrides = [
    '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>',
  ];
  entries.push({
    name: '_rels/.rels',
    data: rels([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]),
  });
  const presentationRels = [
    { id: 'rIdMaster', type: 'slideMaster', target: 'slideMasters/slideMaster1.xml' },
  ];
  for (const number of order) {
    presentationRels.push({ id: `rIdS${number}`, type: 'slide', target: `slides/slide${number}.xml` });
  }
  const ids = order
    .map((number, position) => `<p:sldId id="${256 + position}" r:id="rIdS${number}"/>`)
    .join('');
  entries.push({
    name: 'ppt/presentation.xml',
    data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation ${NS}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rIdMaster"/></p:sldMasterIdLst><p:sldIdLst>${ids}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`,
  });
  entries.push({ name: 'ppt/_rels/presentation.xml.rels', data: rels(presentationRels) });
  entries.push({ name: 'ppt/slideMasters/slideMaster1.xml', data: MASTER });
  entries.push({
    name: 'ppt/slideMasters/_rels/slideMaster1.xml.rels',
    data: rels([{ id: 'rId1', type: 'slideLayout', target: '../slideLayouts/slideLayout1.xml' }]),
  });
  entries.push({ name: 'ppt/slideLayouts/slideLayout1.xml', data: LAYOUT });
  entries.push({
    name: 'ppt/slideLayouts/_rels/slideLayout1.xml.rels',
    data: rels([{ id: 'rId1', type: 'slideMaster', target: '../slideMasters/slideMaster1.xml' }]),
  });
  for (const slide of options.slides) {
    if (missing.has(slide.fileNumber)) continue;
    const slideRels = [{ id: 'rId1', type: 'slideLayout', target: '../slideLayouts/slideLayout1.xml' }];
    if (slide.notes !== undefined) {
      slideRels.push({
        id: 'rId2',
        type: 'notesSlide',
        target: `../notesSlides/notesSlide${slide.fileNumber}.xml`,
      });
      entries.push({
        name: `ppt/notesSlides/notesSlide${slide.fileNumber}.xml`,
        data: notesXml(slide.notes),
      });
    }
    entries.push({ name: `ppt/slides/slide${slide.fileNumber}.xml`, data: slideXml(slide) });
    entries.push({ name: `ppt/slides/_rels/slide${slide.fileNumber}.xml.rels`, data: rels(slideRels) });
    overrides.push(
      `<Override PartName="/ppt/slides/slide${slide.fileNumber}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`,
    );
  }
  entries.unshift({
    name: '[Content_Types].xml',
    data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
  });
  return buildZip(entries);
}
export { presentableDeckViolations } from './testing-presentable-deck-rules';
