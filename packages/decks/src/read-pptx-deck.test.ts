import { ZipArchive } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { readPptxDeck } from './read-pptx-deck';
import { buildTestPptx } from './testing';

const EMU = 12_700;

/** A free shape (no placeholder) at a position in points; `txBox` marks a text box. */
function shape(options: {
  text?: string[];
  sizePt?: number;
  y: number;
  x?: number;
  txBox?: boolean;
  bullet?: boolean;
}): string {
  const { text = [], sizePt = 18, y, x = 36, txBox = true, bullet = false } = options;
  const paragraphs = text
    .map(
      (line) =>
        `<a:p>${bullet ? '<a:pPr><a:buChar char="•"/></a:pPr>' : ''}<a:r><a:rPr lang="en-US" sz="${sizePt * 100}"/><a:t>${line}</a:t></a:r></a:p>`,
    )
    .join('');
  return `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Shape"/><p:cNvSpPr${txBox ? ' txBox="1"' : ''}/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="${x * EMU}" y="${y * EMU}"/><a:ext cx="${400 * EMU}" cy="${40 * EMU}"/></a:xfrm><a:prstGeom prst="rect"/></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs || '<a:p/>'}</p:txBody></p:sp>`;
}

function read(extraShapesXml: string, title?: string) {
  const bytes = buildTestPptx({ slides: [{ fileNumber: 1, ...(title ? { title } : {}), extraShapesXml }] });
  return readPptxDeck(ZipArchive.open(bytes, 'deck.pptx'), 'deck.pptx').slides[0];
}

describe('slide titles without a title placeholder', () => {
  it('take the topmost single-line text whose font is the largest on the slide', () => {
    const slide = read(
      shape({ text: ['Revenue grew', 'Costs fell'], sizePt: 20, y: 120 }) +
        shape({ text: ['Quarterly Results'], sizePt: 32, y: 30 }) +
        shape({ text: ['Footnote'], sizePt: 10, y: 10 }),
    );
    expect(slide?.title).toBe('Quarterly Results');
  });

  it('are not inferred from multi-line, bulleted or lower-half text', () => {
    expect(read(shape({ text: ['Line one', 'Line two'], sizePt: 32, y: 30 }))?.title).toBe('');
    expect(read(shape({ text: ['A bullet'], sizePt: 32, y: 30, bullet: true }))?.title).toBe('');
    // the slide is 540 pt tall: a top edge at 400 pt is in the lower half
    expect(read(shape({ text: ['Closing words'], sizePt: 32, y: 400 }))?.title).toBe('');
    // the largest text is not the single-line one: no title rather than a wrong one
    expect(
      read(
        shape({ text: ['Small heading'], sizePt: 20, y: 20 }) +
          shape({ text: ['Big', 'body'], sizePt: 40, y: 100 }),
      )?.title,
    ).toBe('');
  });

  it('come from the title placeholder when it holds text', () => {
    expect(read(shape({ text: ['Bigger text box'], sizePt: 60, y: 5 }), 'Placeholder Title')?.title).toBe(
      'Placeholder Title',
    );
  });
});

describe('shapes without text', () => {
  it('read a drawn rectangle as content (kind other) and an empty text box as text', () => {
    const slide = read(shape({ y: 100, txBox: false }) + shape({ y: 200, txBox: true }));
    expect(slide?.elements.map((element) => [element.kind, element.text])).toEqual([
      ['other', ''],
      ['text', ''],
    ]);
  });
});
