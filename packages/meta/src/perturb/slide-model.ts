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
  placeholderType?: string;
  /** `idx` of the shape's `p:ph`, which matches it to its layout placeholder. */
  placeholderIdx?: string;
  hidden: boolean;
  /** The shape's own `p:spPr` tag (`empty` for `<p:spPr/>`), where an inherited `a:xfrm` is written. */
  spPr?: { start: number; end: number; empty: boolean };
  /** Whether `spPr` holds an `a:xfrm` (complete or not): only a shape without one inherits geometry. */
  hasXfrm: boolean;
  /** `a:off` / `a:ext` tags of the shape's own `spPr/xfrm` (or `p:xfrm` of a graphic frame). */
  off?: { start: number; end: number; x: number; y: number };
  ext?: { start: number; end: number; cx: number; cy: number };
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

interface ReaderState {
  xml: string;
  shapes: SlideShape[];
  paragraphs: SlideParagraph[];
  runs: SlideRun[];
  stack: Frame[];
  inTree: boolean;
  alternate: number;
  mergedCell: number;
  currentParagraph: number;
  currentRun?: { runTag: { start: number; end: number }; rPr?: SlideRun['rPrTag'] };
  textOpen?: XmlTag;
}

const innermostShape = (state: ReaderState) =>
  state.stack.length > 0 ? state.stack[state.stack.length - 1]!.shape : -1;
const parentName = (state: ReaderState, depth = 1) => state.stack[state.stack.length - depth]?.tag.name;

function shapeHidden(state: ReaderState, index: number): boolean {
  for (let cursor = index; cursor >= 0; cursor = state.shapes[cursor]!.parent)
    if (state.shapes[cursor]!.hidden) return true;
  return false;
}

/** A `</a:t>` ends a text run: kept unless it is inside alternate content, a merged cell or a hidden shape. */
function closeText(state: ReaderState, tag: XmlTag): void {
  const { textOpen, currentRun, currentParagraph } = state;
  if (!textOpen || !currentRun || currentParagraph < 0) return;
  const shape = state.paragraphs[currentParagraph]!.shape;
  if (state.alternate === 0 && state.mergedCell === 0 && !shapeHidden(state, shape)) {
    state.runs.push({
      textStart: textOpen.end,
      textEnd: tag.start,
      text: decodeXmlText(state.xml.slice(textOpen.end, tag.start)),
      runTag: currentRun.runTag,
      rPrTag: currentRun.rPr,
      paragraph: currentParagraph,
      shape,
    });
    state.paragraphs[currentParagraph]!.runs.push(state.runs.length - 1);
  }
  state.textOpen = undefined;
}

function closeTag(state: ReaderState, tag: XmlTag): void {
  const frame = state.stack.pop();
  if (!frame) return;
  const name = frame.tag.name;
  if (name === 'spTree' && state.stack.every((item) => item.tag.name !== 'spTree')) state.inTree = false;
  if (name === 'AlternateContent') state.alternate -= 1;
  if (name === 'tc' && isMergedCell(state.xml.slice(frame.tag.start, frame.tag.end))) state.mergedCell -= 1;
  if (SHAPES.has(name) && state.inTree) {
    const shape = state.shapes[frame.shape];
    if (shape && shape.start === frame.tag.start) shape.end = tag.end;
  }
  if (name === 'p' && state.currentParagraph >= 0) {
    state.paragraphs[state.currentParagraph]!.end = tag.end;
    state.currentParagraph = -1;
  }
  if ((name === 'r' || name === 'fld') && state.currentRun) state.currentRun = undefined;
  if (name === 't') closeText(state, tag);
}

function newShape(state: ReaderState, tag: XmlTag): number {
  state.shapes.push({
    name: tag.name,
    start: tag.start,
    end: tag.end,
    parent: innermostShape(state),
    hidden: false,
    hasXfrm: false,
    paragraphs: [],
  });
  return state.shapes.length - 1;
}

function readShapeProperties(state: ReaderState, current: SlideShape, shapeIndex: number, tag: XmlTag): void {
  const raw = state.xml.slice(tag.start, tag.end);
  const ownChild = state.stack[state.stack.length - 1]?.shape === shapeIndex;
  const parent = parentName(state);
  if (
    tag.name === 'cNvPr' &&
    parent?.startsWith('nv') &&
    state.stack[state.stack.length - 2]?.shape === shapeIndex
  ) {
    const hidden = tagAttribute(raw, 'hidden');
    if (hidden === '1' || hidden === 'true') current.hidden = true;
  }
  if (tag.name === 'ph' && parent === 'nvPr') {
    current.placeholderType = tagAttribute(raw, 'type') ?? 'obj';
    current.placeholderIdx = tagAttribute(raw, 'idx');
  }
  if (tag.name === 'spPr' && parent === current.name && ownChild && !current.spPr)
    current.spPr = { start: tag.start, end: tag.end, empty: tag.kind !== 'open' };
  if (tag.name === 'xfrm' && parent === 'spPr' && parentName(state, 2) === current.name && ownChild)
    current.hasXfrm = true;
  const grandparent = parentName(state, 2);
  const inOwnXfrm =
    parent === 'xfrm' &&
    (grandparent === 'spPr' || grandparent === current.name || grandparent === 'grpSpPr') &&
    ownChild;
  if (inOwnXfrm && tag.name === 'off' && !current.off)
    current.off = {
      start: tag.start,
      end: tag.end,
      x: Number(tagAttribute(raw, 'x')),
      y: Number(tagAttribute(raw, 'y')),
    };
  if (inOwnXfrm && tag.name === 'ext' && !current.ext)
    current.ext = {
      start: tag.start,
      end: tag.end,
      cx: Number(tagAttribute(raw, 'cx')),
      cy: Number(tagAttribute(raw, 'cy')),
    };
}

function readTextStructure(state: ReaderState, current: SlideShape, shapeIndex: number, tag: XmlTag): void {
  const isOpen = tag.kind === 'open';
  const parent = parentName(state);
  if (tag.name === 'p' && parent === 'txBody') {
    // `<a:p/>` (not open) is an empty paragraph, a line of its own.
    state.paragraphs.push({ start: tag.start, end: tag.end, shape: shapeIndex, runs: [] });
    current.paragraphs.push(state.paragraphs.length - 1);
    if (isOpen) state.currentParagraph = state.paragraphs.length - 1;
  }
  if ((tag.name === 'r' || tag.name === 'fld') && isOpen && state.currentParagraph >= 0 && parent === 'p')
    state.currentRun = { runTag: { start: tag.start, end: tag.end } };
  const run = state.currentRun;
  if (tag.name === 'rPr' && run && !run.rPr && (parent === 'r' || parent === 'fld'))
    run.rPr = { start: tag.start, end: tag.end, empty: !isOpen };
  if (tag.name === 't' && isOpen && run) state.textOpen = tag;
}

function openTag(state: ReaderState, tag: XmlTag): void {
  if (tag.name === 'spTree' && !state.inTree && parentName(state) === 'cSld') state.inTree = true;
  let shapeIndex = innermostShape(state);
  if (state.inTree && SHAPES.has(tag.name)) shapeIndex = newShape(state, tag);
  const current = shapeIndex >= 0 ? state.shapes[shapeIndex] : undefined;
  if (current) {
    readShapeProperties(state, current, shapeIndex, tag);
    readTextStructure(state, current, shapeIndex, tag);
  }
  if (tag.kind === 'open') {
    if (tag.name === 'AlternateContent') state.alternate += 1;
    if (tag.name === 'tc' && isMergedCell(state.xml.slice(tag.start, tag.end))) state.mergedCell += 1;
    state.stack.push({ tag, shape: shapeIndex });
  }
}

/**
 * A slide's shapes, paragraphs and runs as `readDeck` sees them, with XML offsets for splicing; nothing
 * inside `mc:AlternateContent` is kept (the reader picks one branch, so neither is safe to edit).
 */
export function readSlideModel(xml: string): SlideModel {
  const state: ReaderState = {
    xml,
    shapes: [],
    paragraphs: [],
    runs: [],
    stack: [],
    inTree: false,
    alternate: 0,
    mergedCell: 0,
    currentParagraph: -1,
  };
  for (const tag of scanTags(xml)) {
    if (tag.kind === 'close') closeTag(state, tag);
    else openTag(state, tag);
  }
  return { shapes: state.shapes, paragraphs: state.paragraphs, runs: state.runs };
}

/** True when a shape is a title placeholder (its text is the slide title). */
export function isTitleShape(shape: SlideShape): boolean {
  return shape.placeholderType === 'title' || shape.placeholderType === 'ctrTitle';
}
