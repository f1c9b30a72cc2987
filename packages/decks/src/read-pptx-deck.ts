import type { ZipArchive } from '@xsb/core';
import { type BoundingBox, type Deck, InputError, type Slide, type SlideElement } from '@xsb/core';
import { countDeckVisibleWords } from './count-visible-words';
import {
  boxFromXfrm,
  layoutPlaceholder,
  masterPlaceholder,
  masterType,
  type PlaceholderRef,
  placeholderOf,
  xfrmOf,
} from './placeholder-geometry';
import { readChartText, readDiagramText } from './pptx-graphic-text';
import { PptxPackage } from './pptx-package';
import { readTextBody, type StyleChain } from './pptx-text-body';
import { child, childrenNamed, path, prefixedAttr, type XmlNode } from './xml-tree';

const EMU_PER_POINT = 12_700;

interface Affine {
  scaleX: number;
  scaleY: number;
  offsetX: number;
  offsetY: number;
}

const IDENTITY: Affine = { scaleX: 1, scaleY: 1, offsetX: 0, offsetY: 0 };

interface ShapeSource {
  layoutTree: XmlNode | undefined;
  masterTree: XmlNode | undefined;
  masterTextStyles: XmlNode | undefined;
  defaultTextStyle: XmlNode | undefined;
  slidePart: string;
}

interface ReadElement {
  element: SlideElement;
  placeholderType: string | undefined;
}

const MAX_GROUP_DEPTH = 32;

function isHidden(shape: XmlNode): boolean {
  const nonVisual = shape.children.find((item) => item.name.startsWith('nv'));
  const cNvPr = nonVisual?.children.find((item) => item.name === 'cNvPr');
  return cNvPr?.attrs.hidden === '1' || cNvPr?.attrs.hidden === 'true';
}

function toPoints(box: { x: number; y: number; w: number; h: number }, affine: Affine): BoundingBox {
  const round = (value: number) => Math.round((value / EMU_PER_POINT) * 100) / 100;
  return {
    x: round(affine.offsetX + box.x * affine.scaleX),
    y: round(affine.offsetY + box.y * affine.scaleY),
    width: round(box.w * affine.scaleX),
    height: round(box.h * affine.scaleY),
  };
}

function textStyleFamily(
  masterTextStyles: XmlNode | undefined,
  ph: PlaceholderRef | undefined,
): XmlNode | undefined {
  if (!ph) return child(masterTextStyles, 'otherStyle');
  const type = masterType(ph.type);
  if (type === 'title') return child(masterTextStyles, 'titleStyle');
  if (type === 'body') return child(masterTextStyles, 'bodyStyle');
  return child(masterTextStyles, 'otherStyle');
}

class PptxSlideReader {
  constructor(
    private readonly pkg: PptxPackage,
    private readonly warnings: string[],
  ) {}

  readShapes(tree: XmlNode | undefined, source: ShapeSource, affine: Affine, depth: number): ReadElement[] {
    const out: ReadElement[] = [];
    for (const shape of tree?.children ?? []) {
      if (shape.name === 'AlternateContent') {
        const branch = child(shape, 'Fallback') ?? child(shape, 'Choice');
        out.push(...this.readShapes(branch, source, affine, depth));
        continue;
      }
      if (!['sp', 'grpSp', 'graphicFrame', 'pic', 'cxnSp'].includes(shape.name)) continue;
      if (isHidden(shape)) continue;
      const read = this.readShape(shape, source, affine, depth);
      if (read) out.push(read);
    }
    return out;
  }

  private geometry(shape: XmlNode, ph: PlaceholderRef | undefined, source: ShapeSource, affine: Affine) {
    let box = boxFromXfrm(xfrmOf(shape));
    if (!box && ph) {
      box =
        boxFromXfrm(xfrmOf(layoutPlaceholder(source.layoutTree, ph))) ??
        boxFromXfrm(xfrmOf(masterPlaceholder(source.masterTree, ph)));
    }
    return box ? toPoints(box, affine) : null;
  }

  private readShape(
    shape: XmlNode,
    source: ShapeSource,
    affine: Affine,
    depth: number,
  ): ReadElement | undefined {
    const ph = placeholderOf(shape);
    const bbox = this.geometry(shape, ph, source, affine);
    const placeholderType = ph?.type;
    if (shape.name === 'grpSp') {
      if (depth >= MAX_GROUP_DEPTH) {
        this.warnings.push(
          `${source.slidePart}: groups nested deeper than ${MAX_GROUP_DEPTH} levels were skipped`,
        );
        return undefined;
      }
      const xfrm = xfrmOf(shape);
      const own = boxFromXfrm(xfrm);
      const childOff = child(xfrm, 'chOff');
      const childExt = child(xfrm, 'chExt');
      let inner = affine;
      if (own && childOff && childExt) {
        const chX = Number(childOff.attrs.x) || 0;
        const chY = Number(childOff.attrs.y) || 0;
        const chW = Number(childExt.attrs.cx) || 0;
        const chH = Number(childExt.attrs.cy) || 0;
        const sx = chW > 0 ? own.w / chW : 1;
        const sy = chH > 0 ? own.h / chH : 1;
        inner = {
          scaleX: affine.scaleX * sx,
          scaleY: affine.scaleY * sy,
          offsetX: affine.offsetX + affine.scaleX * (own.x - chX * sx),
          offsetY: affine.offsetY + affine.scaleY * (own.y - chY * sy),
        };
      }
      const children = this.readShapes(shape, source, inner, depth + 1).map((item) => item.element);
      return {
        placeholderType,
        element: {
          kind: 'group',
          bbox,
          text: children
            .map((item) => item.text)
            .filter((text) => text !== '')
            .join('\n'),
          font_sizes: children.flatMap((item) => item.font_sizes),
          placeholder: false,
          bullet_count: children.reduce((sum, item) => sum + (item.bullet_count ?? 0), 0),
          children,
        },
      };
    }
    if (shape.name === 'pic' || shape.name === 'cxnSp') {
      const kind = shape.name === 'pic' ? 'picture' : 'other';
      const placeholder = kind === 'picture' && Boolean(ph);
      return { placeholderType, element: { kind, bbox, text: '', font_sizes: [], placeholder } };
    }
    if (shape.name === 'graphicFrame')
      return { placeholderType, element: this.readGraphicFrame(shape, source, bbox, ph) };
    return { placeholderType, element: this.readTextShape(shape, ph, source, bbox) };
  }

  private styleChain(ph: PlaceholderRef | undefined, source: ShapeSource): StyleChain {
    const layoutShape = ph ? layoutPlaceholder(source.layoutTree, ph) : undefined;
    const masterShape = ph ? masterPlaceholder(source.masterTree, ph) : undefined;
    return [
      path(layoutShape, 'txBody', 'lstStyle'),
      path(masterShape, 'txBody', 'lstStyle'),
      textStyleFamily(source.masterTextStyles, ph),
      source.defaultTextStyle,
    ];
  }

  private readTextShape(
    shape: XmlNode,
    ph: PlaceholderRef | undefined,
    source: ShapeSource,
    bbox: BoundingBox | null,
  ): SlideElement {
    const body = readTextBody(child(shape, 'txBody'), this.styleChain(ph, source));
    // A drawn shape without text (rectangle, arrow …) is visible content; an empty text box or an
    // unfilled placeholder shows nothing.
    const drawnShape = body.text.trim() === '' && !ph && !isTextBox(shape);
    return {
      kind: drawnShape ? 'other' : 'text',
      bbox,
      text: body.text,
      font_sizes: body.fontSizes,
      placeholder: Boolean(ph),
      bullet_count: body.bulletCount,
    };
  }

  private readGraphicFrame(
    shape: XmlNode,
    source: ShapeSource,
    bbox: BoundingBox | null,
    ph: PlaceholderRef | undefined,
  ): SlideElement {
    const data = path(shape, 'graphic', 'graphicData');
    const uri = data?.attrs.uri ?? '';
    const base = { bbox, placeholder: Boolean(ph) };
    if (uri.endsWith('/table')) {
      const table = child(data, 'tbl');
      const chain: StyleChain = [source.defaultTextStyle];
      const rows: string[] = [];
      const fontSizes: number[] = [];
      let bullets = 0;
      for (const row of childrenNamed(table, 'tr')) {
        const cells: string[] = [];
        for (const cell of childrenNamed(row, 'tc')) {
          if (cell.attrs.hMerge === '1' || cell.attrs.vMerge === '1') continue;
          const body = readTextBody(child(cell, 'txBody'), chain);
          cells.push(body.text.replace(/\s*\n\s*/g, ' ').trim());
          fontSizes.push(...body.fontSizes);
          bullets += body.bulletCount;
        }
        if (cells.some((cell) => cell.trim() !== '')) rows.push(cells.join(' | ').trim());
      }
      return { ...base, kind: 'table', text: rows.join('\n'), font_sizes: fontSizes, bullet_count: bullets };
    }
    const relationships = this.pkg.relationships(source.slidePart);
    if (uri.endsWith('/chart')) {
      const relId = prefixedAttr(child(data, 'chart'), 'id');
      const target = relId ? relationships.get(relId)?.target : undefined;
      const chart = target ? this.pkg.xml(target) : undefined;
      if (!chart) this.warnings.push(`${source.slidePart}: chart part ${target ?? relId ?? '?'} is missing`);
      return { ...base, kind: 'chart', text: readChartText(chart), font_sizes: [] };
    }
    if (uri.endsWith('/diagram')) {
      const relId = prefixedAttr(child(data, 'relIds'), 'dm');
      const target = relId ? relationships.get(relId)?.target : undefined;
      const diagram = target ? this.pkg.xml(target) : undefined;
      return { ...base, kind: 'other', text: readDiagramText(diagram), font_sizes: [] };
    }
    return { ...base, kind: 'other', text: '', font_sizes: [] };
  }
}

function isTextBox(shape: XmlNode): boolean {
  const nonVisual = shape.children.find((item) => item.name.startsWith('nv'));
  const flag = child(nonVisual, 'cNvSpPr')?.attrs.txBox;
  return flag === '1' || flag === 'true';
}

const MAX_INFERRED_TITLE_LENGTH = 120;

function textElements(elements: SlideElement[]): SlideElement[] {
  return elements.flatMap((element) =>
    element.kind === 'group'
      ? textElements(element.children ?? [])
      : element.kind === 'text'
        ? [element]
        : [],
  );
}

const largestSize = (element: SlideElement): number => Math.max(0, ...element.font_sizes);

/**
 * The title placeholder's text, else (generators that draw text boxes) the topmost one-line text of
 * ≤ 120 characters without bullets in the upper half whose font is the slide's largest (within 0.5 pt).
 */
function slideTitle(read: ReadElement[], slideHeight: number | null): string {
  const placeholder = read.find(
    (item) => item.placeholderType === 'title' || item.placeholderType === 'ctrTitle',
  );
  if (placeholder && placeholder.element.text.trim() !== '')
    return placeholder.element.text.replace(/\s*\n\s*/g, ' ').trim();
  const texts = textElements(read.map((item) => item.element)).filter(
    (element) => element.text.trim() !== '',
  );
  const slideLargest = Math.max(0, ...texts.map(largestSize));
  const candidates = texts.filter((element) => {
    const lines = element.text.split('\n').filter((line) => line.trim() !== '');
    return (
      element.bbox !== null &&
      lines.length === 1 &&
      element.text.trim().length <= MAX_INFERRED_TITLE_LENGTH &&
      (element.bullet_count ?? 0) === 0 &&
      (slideHeight === null || element.bbox.y < slideHeight / 2) &&
      slideLargest - largestSize(element) <= 0.5
    );
  });
  const [title] = candidates.sort(
    (a, b) =>
      (a.bbox as BoundingBox).y - (b.bbox as BoundingBox).y ||
      (a.bbox as BoundingBox).x - (b.bbox as BoundingBox).x,
  );
  return title ? title.text.trim() : '';
}

function readNotes(pkg: PptxPackage, slidePart: string): string {
  const notesRel = pkg.relatedOfKind(slidePart, 'notesSlide');
  if (!notesRel?.target) return '';
  const tree = path(pkg.xml(notesRel.target), 'cSld', 'spTree');
  const parts: string[] = [];
  for (const shape of tree?.children ?? []) {
    // Only the body placeholder holds the speaker's notes; the slide image and number are chrome.
    if (placeholderOf(shape)?.type !== 'body') continue;
    const text = readTextBody(child(shape, 'txBody'), []).text.trim();
    if (text) parts.push(text);
  }
  return parts.join('\n');
}

/** Reads a PPTX package (already opened as a ZIP) into a Deck; see README "Reading PPTX". */
export function readPptxDeck(zip: ZipArchive, deckPath: string): Deck {
  const warnings: string[] = [...zip.warnings];
  const pkg = new PptxPackage(zip);
  const presentationPart = pkg.relatedOfKind('', 'officeDocument')?.target ?? 'ppt/presentation.xml';
  const presentation = pkg.xml(presentationPart);
  if (!presentation) {
    throw new InputError(`no presentation part (${presentationPart}): not a PowerPoint file`, {
      file: deckPath,
      code: 'not_a_deck',
    });
  }
  const size = child(presentation, 'sldSz');
  const points = (emu: string | undefined) => {
    const value = Number(emu) / EMU_PER_POINT;
    return size && Number.isFinite(value) ? value : null;
  };
  const slideWidth = points(size?.attrs.cx);
  const slideHeight = points(size?.attrs.cy);
  const defaultTextStyle = child(presentation, 'defaultTextStyle');
  const presentationRels = pkg.relationships(presentationPart);
  const reader = new PptxSlideReader(pkg, warnings);
  const slides: Slide[] = [];
  const slideIds = childrenNamed(child(presentation, 'sldIdLst'), 'sldId');
  for (const [position, slideId] of slideIds.entries()) {
    const index = position + 1;
    const relId = prefixedAttr(slideId, 'id');
    const slidePart = relId ? presentationRels.get(relId)?.target : undefined;
    const slideXml = slidePart ? pkg.xml(slidePart) : undefined;
    if (!slidePart || !slideXml) {
      warnings.push(
        `slide ${index}: its part (${slidePart ?? `relationship ${relId ?? '?'}`}) is missing; kept as an empty slide`,
      );
      slides.push({ index, title: '', visible_text: '', notes: '', elements: [] });
      continue;
    }
    if (slideXml.attrs.show === '0' || slideXml.attrs.show === 'false') {
      warnings.push(`slide ${index} is hidden in the slide show`);
    }
    const layoutPart = pkg.relatedOfKind(slidePart, 'slideLayout')?.target;
    const layout = layoutPart ? pkg.xml(layoutPart) : undefined;
    if (!layout)
      warnings.push(`slide ${index}: its layout part is missing; inherited sizes and positions are unknown`);
    const masterPart = layoutPart ? pkg.relatedOfKind(layoutPart, 'slideMaster')?.target : undefined;
    const master = masterPart ? pkg.xml(masterPart) : undefined;
    const source: ShapeSource = {
      layoutTree: path(layout, 'cSld', 'spTree'),
      masterTree: path(master, 'cSld', 'spTree'),
      masterTextStyles: child(master, 'txStyles'),
      defaultTextStyle,
      slidePart,
    };
    const read = reader.readShapes(path(slideXml, 'cSld', 'spTree'), source, IDENTITY, 0);
    const elements = read.map((item) => item.element);
    slides.push({
      index,
      title: slideTitle(read, slideHeight),
      visible_text: elements
        .map((item) => item.text.trim())
        .filter((text) => text !== '')
        .join('\n'),
      notes: readNotes(pkg, slidePart),
      elements,
    });
  }
  if (slides.length === 0) warnings.push('the deck has no slides');
  return {
    deck_path: deckPath,
    format: 'pptx',
    parser: 'pptx',
    slide_count: slides.length,
    visible_word_count: countDeckVisibleWords(slides),
    slide_width: slideWidth,
    slide_height: slideHeight,
    slides,
    warnings,
  };
}
