import { buildTestPptx } from '@xsb/decks/testing';

export { fillBox, solidImage } from './image/rgb-image';

/** One slide: a title and a text box, both in `color` (hex RRGGBB) on the default white background. */
export interface ColoredTextSlide {
  title: string;
  body: string;
  color: string;
}

const EMU_PER_POINT = 12_700;

function textShape(id: number, text: string, color: string, [x, y, w, h]: [number, number, number, number]) {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="Text ${id}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="${x * EMU_PER_POINT}" y="${y * EMU_PER_POINT}"/><a:ext cx="${w * EMU_PER_POINT}" cy="${h * EMU_PER_POINT}"/></a:xfrm></p:spPr><p:txBody><a:bodyPr wrap="square"/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="3200" b="1"><a:solidFill><a:srgbClr val="${color}"/></a:solidFill></a:rPr><a:t>${escaped}</a:t></a:r></a:p></p:txBody></p:sp>`;
}

/** A 4:3 PPTX (720 × 540 pt) whose slides carry text in a chosen colour: the contrast tests' decks. */
export function buildColoredTextPptx(slides: readonly ColoredTextSlide[]): Buffer {
  return buildTestPptx({
    slides: slides.map((slide, i) => ({
      fileNumber: i + 1,
      extraShapesXml:
        textShape(2, slide.title, slide.color, [36, 30, 648, 60]) +
        textShape(3, slide.body, slide.color, [36, 150, 648, 200]),
    })),
  });
}
