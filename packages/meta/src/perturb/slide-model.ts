import { decodeXmlText, scanTags, tagAttribute, type XmlTag } from './xml-scan';

/** A text run (`a:r` or `a:fld`) the deck reader shows as visible text, located in the slide XML. */
export interface SlideRun {
  /** Offsets of the `<a:t>` element's content (between its tags). */
  textStart: number;
  textEnd: number;
  text: string;
  /** The run's start tag, its end, and its `a:rPr` tag when it has one. */
  runTag: { start: number; end: number };
  rPrTag: { start: number; end: number; empty: boolean } | undefined;
  paragraph: number;
  shape: number;
}

export interface SlideParagraph {
  start: number;
  end: number;
  shape: number;
  runs: number[];
}

export interface SlideShape {
  name: string;
  start: number;
  end: number;
  /** The enclosing shape (a group) or -1 for a child of the slide's shape tree. */
  parent: number;
  placeholderType: string | undefined;
  /** `idx` of the shape's `p:ph`, which matches it to its layout placeholder. */
  placeholderIdx: string | undefined;
  hidden: boolean;
  /** The shape's own `p:spPr` tag (`empty` for `<p:spPr/>`), where an inherited `a:xfrm` is written. */
  spPr: { start: number; end: number; empty: boolean } | undefined;
  /** Whether `spPr` holds an `a:xfrm` (complete or not): only a shape without one inherits geometry. */
  hasXfrm: boolean;
  /** `a:off` / `a:ext` tags of the shape's own `spPr/xfrm` (or `p:xfrm` of a graphic frame). */
  off: { start: number; end: number; x: number; y: number } | undefined;
  ext: { start: number; end: number; cx: number; cy: number } | undefined;
  paragraphs: number[];
}

export interface SlideModel {
  shapes: SlideShape[];
  paragraphs: SlideParagraph[];
  runs: SlideRun[];
}

const SHAPES = new Set(['sp', 'pic', 'graphicFrame', 'grpSp', 'cxnSp']);

/** A merged table cell's continuation, which the reader skips (`hMerge="1"` / `vMerge="1"`). */
function isMergedCell(tag: string): boolean {
  return tagAttribute(tag, 'hMerge') === '1' || tagAttribute(tag, 'vMerge') === '1';
}

interface Frame {
  tag: XmlTag;
  shape: number;
}

/**
 * The visible text structure of one slide part, as `readDeck` of @xsb/decks sees it: shapes of the
 * slide's shape tree (groups included), their paragraphs and text runs, skipping what the reader skips
 * (hidden shapes, merged table continuation cells) and, to stay on the safe side, everything inside
 * `mc:AlternateContent` (the reader picks one branch; we never edit either). Offsets point into the
 * XML so edits can splice exactly one run.
 */
export function readSlideModel(xml: string): SlideModel {
  const shapes: SlideShape[] = [];
  const paragraphs: SlideParagraph[] = [];
  const runs: SlideRun[] = [];
  const stack: Frame[] = [];
  let inTree = false;
  let alternate = 0;
  let mergedCell = 0;
  let currentParagraph = -1;
  let currentRun: { runTag: { start: number; end: number }; rPr?: SlideRun['rPrTag'] } | undefined;
  let textOpen: XmlTag | undefined;
  const innermostShape = () => (stack.length > 0 ? stack[stack.length - 1]!.shape : -1);
  const parentName = (depth = 1) => stack[stack.length - depth]?.tag.name;
  const shapeHidden = (index: number): boolean => {
    for (let cursor = index; cursor >= 0; cursor = shapes[cursor]!.parent)
      if (shapes[cursor]!.hidden) return true;
    return false;
  };
  for (const tag of scanTags(xml)) {
    const raw = xml.slice(tag.start, tag.end);
    if (tag.kind === 'close') {
      const frame = stack.pop();
      if (!frame) continue;
      if (frame.tag.name === 'spTree' && stack.every((item) => item.tag.name !== 'spTree')) inTree = false;
      if (frame.tag.name === 'AlternateContent') alternate -= 1;
      if (frame.tag.name === 'tc' && isMergedCell(xml.slice(frame.tag.start, frame.tag.end))) mergedCell -= 1;
      if (SHAPES.has(frame.tag.name) && inTree) {
        const shape = shapes[frame.shape];
        if (shape && shape.start === frame.tag.start) shape.end = tag.end;
      }
      if (frame.tag.name === 'p' && currentParagraph >= 0) {
        paragraphs[currentParagraph]!.end = tag.end;
        currentParagraph = -1;
      }
      if ((frame.tag.name === 'r' || frame.tag.name === 'fld') && currentRun) currentRun = undefined;
      if (frame.tag.name === 't' && textOpen && currentRun && currentParagraph >= 0) {
        const shape = paragraphs[currentParagraph]!.shape;
        if (alternate === 0 && mergedCell === 0 && !shapeHidden(shape)) {
          const inner = xml.slice(textOpen.end, tag.start);
          runs.push({
            textStart: textOpen.end,
            textEnd: tag.start,
            text: decodeXmlText(inner),
            runTag: currentRun.runTag,
            rPrTag: currentRun.rPr,
            paragraph: currentParagraph,
            shape,
          });
          paragraphs[currentParagraph]!.runs.push(runs.length - 1);
        }
        textOpen = undefined;
      }
      continue;
    }
    const isOpen = tag.kind === 'open';
    if (tag.name === 'spTree' && !inTree && parentName() === 'cSld') inTree = true;
    let shapeIndex = innermostShape();
    if (inTree && SHAPES.has(tag.name)) {
      shapes.push({
        name: tag.name,
        start: tag.start,
        end: tag.end,
        parent: innermostShape(),
        placeholderType: undefined,
        placeholderIdx: undefined,
        hidden: false,
        spPr: undefined,
        hasXfrm: false,
        off: undefined,
        ext: undefined,
        paragraphs: [],
      });
      shapeIndex = shapes.length - 1;
    }
    const current = shapeIndex >= 0 ? shapes[shapeIndex] : undefined;
    if (current) {
      if (
        tag.name === 'cNvPr' &&
        parentName()?.startsWith('nv') &&
        stack[stack.length - 2]?.shape === shapeIndex
      ) {
        const hidden = tagAttribute(raw, 'hidden');
        if (hidden === '1' || hidden === 'true') current.hidden = true;
      }
      if (tag.name === 'ph' && parentName() === 'nvPr') {
        current.placeholderType = tagAttribute(raw, 'type') ?? 'obj';
        current.placeholderIdx = tagAttribute(raw, 'idx');
      }
      const ownChild = stack[stack.length - 1]?.shape === shapeIndex;
      if (tag.name === 'spPr' && parentName() === current.name && ownChild && !current.spPr)
        current.spPr = { start: tag.start, end: tag.end, empty: !isOpen };
      if (tag.name === 'xfrm' && parentName() === 'spPr' && parentName(2) === current.name && ownChild)
        current.hasXfrm = true;
      const inOwnXfrm =
        parentName() === 'xfrm' &&
        (parentName(2) === 'spPr' || parentName(2) === current.name || parentName(2) === 'grpSpPr') &&
        stack[stack.length - 1]?.shape === shapeIndex;
      if (inOwnXfrm && tag.name === 'off' && !current.off) {
        current.off = {
          start: tag.start,
          end: tag.end,
          x: Number(tagAttribute(raw, 'x')),
          y: Number(tagAttribute(raw, 'y')),
        };
      }
      if (inOwnXfrm && tag.name === 'ext' && !current.ext) {
        current.ext = {
          start: tag.start,
          end: tag.end,
          cx: Number(tagAttribute(raw, 'cx')),
          cy: Number(tagAttribute(raw, 'cy')),
        };
      }
      if (tag.name === 'p' && isOpen && parentName() === 'txBody') {
        paragraphs.push({ start: tag.start, end: tag.end, shape: shapeIndex, runs: [] });
        currentParagraph = paragraphs.length - 1;
        current.paragraphs.push(currentParagraph);
      } else if (tag.name === 'p' && !isOpen && parentName() === 'txBody') {
        // `<a:p/>`: an empty paragraph, a line of its own.
        paragraphs.push({ start: tag.start, end: tag.end, shape: shapeIndex, runs: [] });
        current.paragraphs.push(paragraphs.length - 1);
      }
      if (
        (tag.name === 'r' || tag.name === 'fld') &&
        isOpen &&
        currentParagraph >= 0 &&
        parentName() === 'p'
      ) {
        currentRun = { runTag: { start: tag.start, end: tag.end } };
      }
      if (
        tag.name === 'rPr' &&
        currentRun &&
        !currentRun.rPr &&
        (parentName() === 'r' || parentName() === 'fld')
      ) {
        currentRun.rPr = { start: tag.start, end: tag.end, empty: !isOpen };
      }
      if (tag.name === 't' && isOpen && currentRun) textOpen = tag;
    }
    if (isOpen) {
      if (tag.name === 'AlternateContent') alternate += 1;
      if (tag.name === 'tc' && isMergedCell(raw)) mergedCell += 1;
      stack.push({ tag, shape: shapeIndex });
    }
  }
  return { shapes, paragraphs, runs };
}

/** True when a shape is a title placeholder (its text is the slide title). */
export function isTitleShape(shape: SlideShape): boolean {
  return shape.placeholderType === 'title' || shape.placeholderType === 'ctrTitle';
}
