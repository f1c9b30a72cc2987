import type { Deck } from '@xsb/core';
import type { PptxEditor } from './pptx-editor';
import type { SlideList } from './slide-list';
import { readSlideModel, type SlideModel } from './slide-model';
import { applySplices, encodeXmlText, prefixOf, type Splice, scanTags } from './xml-scan';

export interface RunEdit {
  position: number;
  run: number;
  text: string;
}

/** A new paragraph `text` after paragraph `paragraph` (same formatting as its first run). */
export interface ParagraphInsert {
  position: number;
  paragraph: number;
  text: string;
}

/** Slide parts of one deck with their text models, parsed once per part. */
export class SlideTexts {
  private readonly models = new Map<number, { xml: string; model: SlideModel }>();

  constructor(
    readonly editor: PptxEditor,
    readonly list: SlideList,
    readonly deck: Deck,
  ) {}

  get(position: number): { xml: string; model: SlideModel } {
    let found = this.models.get(position);
    if (!found) {
      const xml = this.editor.text(this.list.entries[position]!.part) ?? '';
      found = { xml, model: readSlideModel(xml) };
      this.models.set(position, found);
    }
    return found;
  }

  /** Splices each unit's edits into its slide part, slide by slide, units in their order. */
  spliceEach<T extends { position: number }>(
    units: readonly T[],
    edit: (unit: T, slide: { xml: string; model: SlideModel }) => Splice[],
  ): void {
    for (const position of new Set(units.map((unit) => unit.position))) {
      const slide = this.get(position);
      const splices = units.filter((unit) => unit.position === position).flatMap((unit) => edit(unit, slide));
      this.editor.setText(this.list.entries[position]!.part, applySplices(slide.xml, splices));
    }
  }
}

/** The first element named `name` inside `[start, end)` of the XML, with its content, or undefined. */
function childElement(xml: string, start: number, end: number, name: string): string | undefined {
  const slice = xml.slice(start, end);
  let open: number | undefined;
  let depth = 0;
  for (const tag of scanTags(slice)) {
    if (tag.name !== name) continue;
    if (open === undefined) {
      if (tag.kind === 'empty') return slice.slice(tag.start, tag.end);
      if (tag.kind === 'close') return undefined;
      open = tag.start;
      depth = 1;
      continue;
    }
    if (tag.kind === 'open') depth += 1;
    if (tag.kind === 'close') depth -= 1;
    if (depth === 0) return slice.slice(open, tag.end);
  }
  return undefined;
}

function paragraphCopy(xml: string, model: SlideModel, paragraphIndex: number, text: string): string {
  const paragraph = model.paragraphs[paragraphIndex]!;
  const prefix = prefixOf(xml.slice(paragraph.start, paragraph.start + 8));
  const pPr = childElement(xml, paragraph.start, paragraph.end, 'pPr') ?? '';
  const firstRun = model.runs[paragraph.runs[0]!]!;
  const rPr = firstRun.rPrTag ? (childElement(xml, firstRun.runTag.start, paragraph.end, 'rPr') ?? '') : '';
  return `<${prefix}p>${pPr}<${prefix}r>${rPr}<${prefix}t>${encodeXmlText(text)}</${prefix}t></${prefix}r></${prefix}p>`;
}

/** Applies the edits and returns each slide's expected visible text (runs walked in document order, the reader's). */
export function applyTextEdits(
  texts: SlideTexts,
  edits: readonly RunEdit[],
  inserts: readonly ParagraphInsert[] = [],
): string[] {
  const expected = texts.deck.slides.map((slide) => slide.visible_text);
  const positions = new Set([
    ...edits.map((edit) => edit.position),
    ...inserts.map((insert) => insert.position),
  ]);
  for (const position of positions) {
    const { xml, model } = texts.get(position);
    const runEdits = new Map(
      edits.filter((edit) => edit.position === position).map((edit) => [edit.run, edit.text]),
    );
    const paragraphInserts = inserts.filter((insert) => insert.position === position);
    const splices: Splice[] = [];
    for (const [run, text] of runEdits) {
      const target = model.runs[run]!;
      splices.push({ start: target.textStart, end: target.textEnd, text: encodeXmlText(text) });
    }
    for (const insert of paragraphInserts) {
      const paragraph = model.paragraphs[insert.paragraph]!;
      splices.push({
        start: paragraph.end,
        end: paragraph.end,
        text: paragraphCopy(xml, model, insert.paragraph, insert.text),
      });
    }
    texts.editor.setText(texts.list.entries[position]!.part, applySplices(xml, splices));

    let visible = expected[position] ?? '';
    let cursor = 0;
    model.runs.forEach((run, index) => {
      if (run.text.trim() === '') return;
      const replacement = runEdits.get(index);
      let found = visible.indexOf(run.text, cursor);
      let old = run.text;
      let next = replacement;
      if (found < 0 && run.text.trim() !== run.text) {
        old = run.text.trim();
        next = replacement?.trim();
        found = visible.indexOf(old, cursor);
      }
      if (found < 0) return;
      if (next !== undefined) visible = visible.slice(0, found) + next + visible.slice(found + old.length);
      cursor = found + (next ?? old).length;
      for (const insert of paragraphInserts) {
        const paragraph = model.paragraphs[insert.paragraph]!;
        if (paragraph.runs[paragraph.runs.length - 1] !== index) continue;
        visible = `${visible.slice(0, cursor)}\n${insert.text}${visible.slice(cursor)}`;
        cursor += insert.text.length + 1;
      }
    });
    expected[position] = visible;
  }
  return expected;
}
