import { type InheritedXfrm, placeholderGeometryResolver } from '@xsb/decks';
import type { PerturbationChange } from '../schemas/meta-perturbation';
import {
  chooseUnits,
  excerpt,
  type KindOutcome,
  type PptxVariant,
  skippedOutcome,
  unchangedSlides,
} from './kind-outcome';
import type { SlideModel, SlideShape } from './slide-model';
import { encodeXmlAttribute, prefixOf, type Splice, tagAttribute } from './xml-scan';

const EMU_PER_POINT = 12_700;
/** Sizes `shrink_fonts` sets, in points: all below the 12 pt legibility floor of the layout check. */
export const SHRUNK_FONT_SIZES_PT = [6, 7, 8, 9, 10] as const;

/** `shrink_fonts`: sets a share of the text runs on content slides to 6–10 pt. */
export function shrinkFonts(variant: PptxVariant): KindOutcome {
  const units: Array<{ position: number; run: number }> = [];
  for (const position of variant.content) {
    variant.texts.get(position).model.runs.forEach((run, index) => {
      if (run.text.trim() !== '') units.push({ position, run: index });
    });
  }
  if (units.length === 0) return skippedOutcome('the content slides hold no text run');
  const chosen = chooseUnits(units, variant);
  const changes: PerturbationChange[] = [];
  const fontChecks = new Map<number, { maxPt: number; count: number }>();
  variant.texts.spliceEach(chosen, ({ position, run: index }, { xml, model }) => {
    const run = model.runs[index]!;
    const size = SHRUNK_FONT_SIZES_PT[Math.floor(variant.random() * SHRUNK_FONT_SIZES_PT.length)]!;
    const sz = String(size * 100);
    const check = fontChecks.get(position) ?? { maxPt: 0, count: 0 };
    fontChecks.set(position, { maxPt: Math.max(check.maxPt, size), count: check.count + 1 });
    const raw = run.rPrTag ? xml.slice(run.rPrTag.start, run.rPrTag.end) : undefined;
    const explicit = raw === undefined ? undefined : tagAttribute(raw, 'sz');
    const old = explicit === undefined ? 'inherited' : String(Number(explicit) / 100);
    const detail = excerpt(run.text);
    changes.push({ slide: position + 1, field: 'font_size', old, new: String(size), detail });
    if (!run.rPrTag || raw === undefined) {
      const prefix = prefixOf(xml.slice(run.runTag.start, run.runTag.end));
      return [{ start: run.runTag.end, end: run.runTag.end, text: `<${prefix}rPr sz="${sz}"/>` }];
    }
    const rewritten =
      explicit !== undefined
        ? raw.replace(/(\ssz\s*=\s*)("[^"]*"|'[^']*')/, `$1"${sz}"`)
        : raw.replace(/^(<[\w.:-]+)/, `$1 sz="${sz}"`);
    return [{ start: run.rPrTag.start, end: run.rPrTag.end, text: rewritten }];
  });
  return {
    eligible: units.length,
    changed: chosen.length,
    changes,
    expectedSlides: unchangedSlides(variant.deck),
    fontChecks: [...fontChecks].map(([position, check]) => ({ position, ...check })),
  };
}

interface Box {
  x: number;
  y: number;
  cx: number;
  cy: number;
}

const usable = (box: Box): Box | undefined =>
  [box.x, box.y, box.cx, box.cy].every(Number.isFinite) && box.cx > 0 && box.cy > 0 ? box : undefined;

/** A shape's box and, for a placeholder without an `a:xfrm` of its own, the geometry it inherits. */
interface Geometry {
  box: Box;
  inherited: InheritedXfrm | undefined;
}

function ownGeometry(shape: SlideShape): Geometry | undefined {
  if (!shape.off || !shape.ext) return undefined;
  const box = usable({ x: shape.off.x, y: shape.off.y, cx: shape.ext.cx, cy: shape.ext.cy });
  return box && { box, inherited: undefined };
}

/** A shape's own box, else (a placeholder without `a:xfrm`, usual in template decks) the one it inherits, as `readDeck` resolves it. */
function slideGeometry(variant: PptxVariant): (position: number, shape: SlideShape) => Geometry | undefined {
  const resolvers = new Map<number, ReturnType<typeof placeholderGeometryResolver>>();
  const resolverFor = (position: number) => {
    let resolver = resolvers.get(position);
    if (!resolver) {
      const related = (part: string | undefined, kind: string) =>
        part ? variant.editor.relationships(part).find((rel) => rel.kind === kind)?.target : undefined;
      const layout = related(variant.list.entries[position]!.part, 'slideLayout');
      const master = related(layout, 'slideMaster');
      resolver = placeholderGeometryResolver({
        layoutXml: layout ? variant.editor.text(layout) : undefined,
        masterXml: master ? variant.editor.text(master) : undefined,
      });
      resolvers.set(position, resolver);
    }
    return resolver;
  };
  return (position, shape) => {
    const own = ownGeometry(shape);
    if (own || shape.hasXfrm || !shape.spPr || shape.placeholderType === undefined) return own;
    const inherited = resolverFor(position)({ type: shape.placeholderType, idx: shape.placeholderIdx });
    const box = inherited && usable({ x: inherited.x, y: inherited.y, cx: inherited.cx, cy: inherited.cy });
    return box && { box, inherited };
  };
}

/** The DrawingML prefix the slide part declares (`a:` almost always), or a local declaration. */
function drawingPrefix(xml: string): { prefix: string; declaration: string } {
  const match =
    /\sxmlns:([\w.-]+)\s*=\s*["']http:\/\/schemas\.openxmlformats\.org\/drawingml\/2006\/main["']/.exec(xml);
  if (match) return { prefix: `${match[1]}:`, declaration: '' };
  return { prefix: 'a:', declaration: ' xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"' };
}

/** Gives a placeholder its own `a:xfrm` (first child of `p:spPr`, as the schema orders it), keeping inherited rotation and flips. */
function writeXfrm(xml: string, shape: SlideShape, box: Box, inherited: InheritedXfrm): Splice {
  const spPr = shape.spPr!;
  const { prefix, declaration } = drawingPrefix(xml);
  const attributes = Object.entries(inherited.attributes)
    .map(([name, value]) => ` ${name}="${encodeXmlAttribute(value)}"`)
    .join('');
  const xfrm = `<${prefix}xfrm${declaration}${attributes}><${prefix}off x="${box.x}" y="${box.y}"/><${prefix}ext cx="${box.cx}" cy="${box.cy}"/></${prefix}xfrm>`;
  if (!spPr.empty) return { start: spPr.end, end: spPr.end, text: xfrm };
  const raw = xml.slice(spPr.start, spPr.end);
  const name = /^<([\w.:-]+)/.exec(raw)![1]!;
  return { start: spPr.start, end: spPr.end, text: `${raw.replace(/\s*\/>$/, '>')}${xfrm}</${name}>` };
}

const describe = (box: Box) => `x=${box.x} y=${box.y} cx=${box.cx} cy=${box.cy}`;

function offSlide(box: Box, size: { cx: number; cy: number }): boolean {
  const tolerance = 2 * EMU_PER_POINT;
  return (
    box.x < -tolerance ||
    box.y < -tolerance ||
    box.x + box.cx > size.cx + tolerance ||
    box.y + box.cy > size.cy + tolerance
  );
}

type OverflowUnit = { position: number; shape: number; box: Box; inherited: InheritedXfrm | undefined };
type GeometryOf = ReturnType<typeof slideGeometry>;

function hasVisibleText(model: SlideModel, shape: SlideShape): boolean {
  return shape.paragraphs.some((paragraph) =>
    model.paragraphs[paragraph]!.runs.some((run) => model.runs[run]!.text.trim() !== ''),
  );
}

function overflowUnits(variant: PptxVariant, geometryOf: GeometryOf): OverflowUnit[] {
  const units: OverflowUnit[] = [];
  for (const position of variant.content) {
    const { model } = variant.texts.get(position);
    model.shapes.forEach((shape, index) => {
      if (shape.parent !== -1 || shape.name !== 'sp' || shape.hidden) return;
      const geometry = hasVisibleText(model, shape) ? geometryOf(position, shape) : undefined;
      if (geometry) units.push({ position, shape: index, ...geometry });
    });
  }
  return units;
}

/** The shapes a moved box can be put onto: text with text, or a picture that is not a slide background. */
function overlapPartners(variant: PptxVariant, geometryOf: GeometryOf, position: number, unit: OverflowUnit) {
  const { model } = variant.texts.get(position);
  const slideArea = variant.slideSize
    ? variant.slideSize.cx * variant.slideSize.cy
    : Number.POSITIVE_INFINITY;
  const isPartner = (shape: SlideShape, box: Box): boolean => {
    if (shape.name === 'pic') return box.cx * box.cy < 0.8 * slideArea;
    return shape.name === 'sp' && hasVisibleText(model, shape);
  };
  return model.shapes
    .map((other, index) => ({ other, index, box: geometryOf(position, other)?.box }))
    .filter(
      (entry): entry is { other: SlideShape; index: number; box: Box } =>
        entry.index !== unit.shape &&
        entry.other.parent === -1 &&
        !entry.other.hidden &&
        entry.box !== undefined &&
        isPartner(entry.other, entry.box),
    );
}

/** Where a chosen box goes: onto a partner (half the time when the slide size is known), else half off the right edge. */
function overflowMove(
  variant: PptxVariant,
  unit: OverflowUnit,
  partners: ReadonlyArray<{ index: number; box: Box }>,
): { next: Box; detail: string; overlap: boolean } | undefined {
  const overlap = partners.length > 0 && (variant.slideSize === null || variant.random() < 0.5);
  if (overlap) {
    const partner = partners[Math.floor(variant.random() * partners.length)]!;
    const target = partner.box;
    return {
      next: {
        x: target.x + Math.round(target.cx / 10),
        y: target.y + Math.round(target.cy / 10),
        cx: target.cx,
        cy: target.cy,
      },
      detail: `moved onto shape ${partner.index + 1} of the slide and given its size`,
      overlap,
    };
  }
  if (!variant.slideSize) return undefined;
  return {
    next: { ...unit.box, x: variant.slideSize.cx - Math.floor(unit.box.cx / 2) },
    detail: 'moved half off the right edge of the slide',
    overlap,
  };
}

/** The edits that give a shape its new box: its own `a:off`/`a:ext`, or a new `a:xfrm` when it inherited one. */
function boxSplices(
  xml: string,
  shape: SlideShape,
  next: Box,
  inherited: InheritedXfrm | undefined,
): Splice[] {
  if (inherited) return [writeXfrm(xml, shape, next, inherited)];
  const off = xml
    .slice(shape.off!.start, shape.off!.end)
    .replace(/(\sx\s*=\s*)"[^"]*"/, `$1"${next.x}"`)
    .replace(/(\sy\s*=\s*)"[^"]*"/, `$1"${next.y}"`);
  const ext = xml
    .slice(shape.ext!.start, shape.ext!.end)
    .replace(/(\scx\s*=\s*)"[^"]*"/, `$1"${next.cx}"`)
    .replace(/(\scy\s*=\s*)"[^"]*"/, `$1"${next.cy}"`);
  return [
    { start: shape.off!.start, end: shape.off!.end, text: off },
    { start: shape.ext!.start, end: shape.ext!.end, text: ext },
  ];
}

const pointsOf = (value: number) => Math.round((value / EMU_PER_POINT) * 100) / 100;

/** `overflow_text`: moves text boxes half off the slide or onto another box, recording which geometry checks break. */
export function overflowText(variant: PptxVariant): KindOutcome {
  const geometryOf = slideGeometry(variant);
  const units = overflowUnits(variant, geometryOf);
  if (units.length === 0)
    return skippedOutcome(
      "the content slides hold no text box with a position and size (its own, or its layout placeholder's)",
    );
  const chosen = chooseUnits(units, variant);
  const changes: PerturbationChange[] = [];
  const boxChecks: KindOutcome['boxChecks'] = [];
  const broken = new Set<'off_slide' | 'text_overlap'>();
  variant.texts.spliceEach(chosen, (unit, { xml, model }) => {
    const { position } = unit;
    const move = overflowMove(variant, unit, overlapPartners(variant, geometryOf, position, unit));
    if (!move) return [];
    const { next } = move;
    if (move.overlap) broken.add('text_overlap');
    if (variant.slideSize && offSlide(next, variant.slideSize)) broken.add('off_slide');
    const detail = unit.inherited
      ? `${move.detail} (its position was inherited from the slide ${unit.inherited.from}; the shape now carries its own)`
      : move.detail;
    changes.push({
      slide: position + 1,
      field: 'bbox',
      old: describe(unit.box),
      new: describe(next),
      detail,
    });
    const bbox = {
      x: pointsOf(next.x),
      y: pointsOf(next.y),
      width: pointsOf(next.cx),
      height: pointsOf(next.cy),
    };
    boxChecks.push({ position, bbox });
    return boxSplices(xml, model.shapes[unit.shape]!, next, unit.inherited);
  });
  if (changes.length === 0) return skippedOutcome('no slide size and no second box to overlap', units.length);
  return {
    eligible: units.length,
    changed: changes.length,
    changes,
    expectedSlides: unchangedSlides(variant.deck),
    boxChecks,
    overflowChecks: (['off_slide', 'text_overlap'] as const).filter((check) => broken.has(check)),
  };
}
