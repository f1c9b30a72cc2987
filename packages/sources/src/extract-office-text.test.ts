import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildZip, InputError } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSourceCase } from './discover-source-cases';
import { extractOfficeText } from './extract-office-text';
import { extractSourceText } from './extract-source-text';
import { writeSourceCase } from './testing';

const corpusPptxDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus/pptx');

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A minimal Word document, as Word writes one (only the parts a reader needs). */
function buildDocx(body: string): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
    },
  ]);
}

/** A minimal OpenDocument text (`mimetype` stored first, as the format asks). */
function buildOdt(body: string): Buffer {
  return buildZip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
    {
      name: 'content.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0">
  <office:automatic-styles><style:style xmlns:style="s" style:name="P1"/></office:automatic-styles>
  <office:body><office:text>${body}</office:text></office:body>
</office:document-content>`,
    },
  ]);
}

const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
const slideXml = (...paragraphs: string[]) =>
  `<p:sld xmlns:p="p" ${A}><p:cSld><p:spTree><p:sp><p:txBody>${paragraphs.map((p) => `<a:p><a:r><a:t>${p}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;

/** Two slides whose files are numbered against the presentation's order (slide2.xml is shown first). */
function buildPptx(): Buffer {
  return buildZip([
    {
      name: 'ppt/presentation.xml',
      data: '<p:presentation xmlns:p="p" xmlns:r="r"><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>',
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: '<Relationships><Relationship Id="rId3" Type="slide" Target="slides/slide1.xml"/><Relationship Id="rId7" Type="slide" Target="slides/slide2.xml"/></Relationships>',
    },
    { name: 'ppt/slides/slide1.xml', data: slideXml('Second slide', 'Heat pumps &amp; grids') },
    { name: 'ppt/slides/slide2.xml', data: slideXml('First slide') },
    { name: 'ppt/notesSlides/notesSlide1.xml', data: slideXml('Speaker notes stay out') },
  ]);
}

let data: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const temp = await makeTempDir('xsb-office-');
  data = join(temp.dir, 'data');
  cleanup = temp.cleanup;
});
afterEach(() => cleanup());

describe('extractOfficeText', () => {
  it('reads a .docx body: paragraphs, runs, tabs, breaks and tables; not deletions or tab stops', () => {
    const docx = buildDocx(
      [
        '<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>The COP was</w:t></w:r><w:r><w:t xml:space="preserve"> 3.4 &lt;measured&gt;</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:r><w:t>.</w:t></w:r></w:p>',
        '<w:p><w:r><w:t>Name</w:t><w:tab/><w:t>Value</w:t><w:br/><w:t>next line</w:t></w:r></w:p>',
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Site</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Homes</w:t></w:r></w:p></w:tc></w:tr>',
        '<w:tr><w:tc><w:p><w:r><w:t>Nord</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>412</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
        '<w:p><w:r><w:t>Übersicht: ≠ bleibt.</w:t></w:r></w:p>',
      ].join(''),
    );
    expect(extractOfficeText(docx, 'r.docx', 'docx')).toEqual({
      text: 'The COP was 3.4 <measured>.\n\nName\tValue\nnext line\n\nSite | Homes\nNord | 412\n\nÜbersicht: ≠ bleibt.',
      pages: [],
      pageCount: 0,
    });
  });

  it('reads an .odt body: headings, spans, runs of spaces, tables; not notes or comments', () => {
    const odt = buildOdt(`
      <text:h text:outline-level="1">Raft <text:span>consensus</text:span></text:h>
      <text:p>A leader<text:s text:c="2"/>sends heartbeats.<text:note><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note>
        <office:annotation><text:p>A comment.</text:p></office:annotation></text:p>
      <table:table><table:table-row><table:table-cell><text:p>term</text:p></table:table-cell><table:table-cell><text:p>3</text:p></table:table-cell></table:table-row></table:table>`);
    expect(extractOfficeText(odt, 'n.odt', 'odt').text).toBe(
      'Raft consensus\n\nA leader  sends heartbeats.\n\nterm | 3',
    );
  });

  it('reads .pptx slides in presentation order, one page span per slide, without speaker notes', () => {
    const { text, pages, pageCount } = extractOfficeText(buildPptx(), 'd.pptx', 'pptx');
    expect(text).toBe('First slide\n\nSecond slide\n\nHeat pumps & grids');
    expect(pageCount).toBe(2);
    expect(pages.map((span) => text.slice(span.start, span.end))).toEqual([
      'First slide',
      'Second slide\n\nHeat pumps & grids',
    ]);
  });

  it('names the file and the reason for a file that is not such a package', () => {
    const error = (() => {
      try {
        extractOfficeText(new TextEncoder().encode('not a zip'), 'bad.docx', 'docx');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/^bad\.docx: not a readable \.docx file/);
    expect(() => extractOfficeText(buildOdt(''), 'x.docx', 'docx')).toThrow(/no word\/document\.xml/);
  });
});

describe('office sources through case discovery', () => {
  it('discovers .docx, .odt and .pptx cases by extension and extracts them', async () => {
    await writeSourceCase(
      data,
      'word',
      'report.docx',
      buildDocx('<w:p><w:r><w:t>Word text.</w:t></w:r></w:p>'),
    );
    await writeSourceCase(data, 'writer', 'notes.odt', buildOdt('<text:p>Writer text.</text:p>'));
    await writeSourceCase(data, 'deck', 'talk.pptx', buildPptx());
    for (const [caseId, type, text] of [
      ['word', 'docx', 'Word text.'],
      ['writer', 'odt', 'Writer text.'],
      ['deck', 'pptx', 'First slide'],
    ] as const) {
      const sourceCase = await loadSourceCase(data, caseId);
      expect(sourceCase.sourceType).toBe(type);
      const extracted = await extractSourceText(sourceCase, { pages: '1' });
      expect(extracted.parser).toBe(type);
      expect(extracted.text.startsWith(text)).toBe(true);
      // `--pages` selects PDF pages only; other sources are read whole.
      expect(extracted.pageRange).toBeUndefined();
    }
  });

  it('refuses a document without text, and advises saving a binary .doc as .docx', async () => {
    await writeSourceCase(data, 'empty', 'e.docx', buildDocx('<w:p/>'));
    await expect(extractSourceText(await loadSourceCase(data, 'empty'))).rejects.toThrow(/holds no text/);
    await writeSourceCase(data, 'old', 'old.doc', 'binary');
    await expect(loadSourceCase(data, 'old')).rejects.toThrow(/save it as \.docx/);
  });
});

describe.skipIf(!existsSync(corpusPptxDir))('office sources on the shared corpus', () => {
  it('reads a real deck: text, groups and table cells, one span per slide', async () => {
    const file = join(corpusPptxDir, 'test_slides.pptx');
    const { text, pageCount } = extractOfficeText(new Uint8Array(await readFile(file)), file, 'pptx');
    expect(pageCount).toBe(1);
    expect(text).toContain('Group test text');
    expect(text).toContain('Col head 1 | Col head 2\nCell text 1 | Cell text 2');
  });

  it('keeps speaker notes out', async () => {
    const file = join(corpusPptxDir, 'prs-notes.pptx');
    await expect(extractSourceText({ sourceFile: file, sourceType: 'pptx' })).rejects.toThrow(
      /holds no text/,
    );
  });
});
