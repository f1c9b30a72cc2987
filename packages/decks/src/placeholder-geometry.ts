import { child, parseXml, path, type XmlNode } from './xml-tree';

/** A slide shape's `p:ph`: its type (`obj` when absent, as the schema says) and its index. */
export interface PlaceholderRef {
  type: string;
  idx: string | undefined;
}

/** An `a:xfrm` a placeholder inherits (EMU), with the rotation and flips written beside it. */
export interface InheritedXfrm {
  x: number;
  y: number;
  cx: number;
  cy: number;
  /** `rot`, `flipH`, `flipV` of the inherited `a:xfrm` as written, when it sets them. */
  attributes: Record<string, string>;
  from: 'layout' | 'master';
}

/** Master placeholders are keyed by family: a layout's `subTitle`/`obj` inherits from the master's `body`. */
export function masterType(type: string): string {
  if (type === 'ctrTitle') return 'title';
  if (type === 'subTitle' || type === 'obj' || type === 'body') return 'body';
  return type;
}

export function placeholderOf(shape: XmlNode): PlaceholderRef | undefined {
  const nonVisual = shape.children.find((item) => item.name.startsWith('nv'));
  const ph = path(nonVisual, 'nvPr', 'ph');
  if (!ph) return undefined;
  return { type: ph.attrs.type ?? 'obj', idx: ph.attrs.idx };
}

function placeholdersOf(tree: XmlNode | undefined): Array<{ shape: XmlNode; ph: PlaceholderRef }> {
  const found: Array<{ shape: XmlNode; ph: PlaceholderRef }> = [];
  for (const shape of tree?.children ?? []) {
    const ph = placeholderOf(shape);
    if (ph) found.push({ shape, ph });
  }
  return found;
}

/** Same `idx` first, else the same type. */
export function layoutPlaceholder(tree: XmlNode | undefined, ph: PlaceholderRef): XmlNode | undefined {
  const candidates = placeholdersOf(tree);
  if (ph.idx !== undefined) {
    const byIdx = candidates.find((item) => item.ph.idx === ph.idx);
    if (byIdx) return byIdx.shape;
  }
  return candidates.find((item) => item.ph.type === ph.type)?.shape;
}

export function masterPlaceholder(tree: XmlNode | undefined, ph: PlaceholderRef): XmlNode | undefined {
  const wanted = masterType(ph.type);
  return placeholdersOf(tree).find((item) => masterType(item.ph.type) === wanted)?.shape;
}

export function xfrmOf(shape: XmlNode | undefined): XmlNode | undefined {
  return path(shape, 'spPr', 'xfrm') ?? path(shape, 'grpSpPr', 'xfrm') ?? child(shape, 'xfrm');
}

/** An `a:xfrm`'s offset and extent (EMU), undefined unless all four are numbers. */
export function boxFromXfrm(
  xfrm: XmlNode | undefined,
): { x: number; y: number; w: number; h: number } | undefined {
  const off = child(xfrm, 'off');
  const ext = child(xfrm, 'ext');
  if (!off || !ext) return undefined;
  const values = [off.attrs.x, off.attrs.y, ext.attrs.cx, ext.attrs.cy].map(Number);
  if (values.some((value) => !Number.isFinite(value))) return undefined;
  const [x, y, w, h] = values as [number, number, number, number];
  return { x, y, w, h };
}

function inheritedXfrm(shape: XmlNode | undefined, from: InheritedXfrm['from']): InheritedXfrm | undefined {
  const xfrm = xfrmOf(shape);
  const box = boxFromXfrm(xfrm);
  if (!xfrm || !box) return undefined;
  const attributes: Record<string, string> = {};
  for (const name of ['rot', 'flipH', 'flipV']) {
    const value = xfrm.attrs[name];
    if (value !== undefined) attributes[name] = value;
  }
  return { x: box.x, y: box.y, cx: box.w, cy: box.h, attributes, from };
}

/**
 * The geometry a slide placeholder without its own `a:xfrm` inherits from one slide's layout, then
 * master, as PowerPoint and `readDeck` resolve it; the parts are parsed once for all placeholders.
 */
export function placeholderGeometryResolver(parts: {
  layoutXml: string | undefined;
  masterXml: string | undefined;
}): (placeholder: PlaceholderRef) => InheritedXfrm | undefined {
  const layoutTree = path(parts.layoutXml ? parseXml(parts.layoutXml) : undefined, 'cSld', 'spTree');
  const masterTree = path(parts.masterXml ? parseXml(parts.masterXml) : undefined, 'cSld', 'spTree');
  return (placeholder) =>
    inheritedXfrm(layoutPlaceholder(layoutTree, placeholder), 'layout') ??
    inheritedXfrm(masterPlaceholder(masterTree, placeholder), 'master');
}
