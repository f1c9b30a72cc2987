import { InputError } from '@xsb/core';
import { type PptxEditor, relativeTarget, relsPartOf } from './pptx-editor';
import { scanTags, tagAttribute } from './xml-scan';

export interface SlideEntry {
  /** The slide part, e.g. `ppt/slides/slide3.xml`. */
  part: string;
  rid: string;
  id: number;
  /** The `p:sldId` element exactly as written (reused when the list is rewritten). */
  raw: string;
}

export interface SlideList {
  presentationPart: string;
  entries: SlideEntry[];
}

const SLIDE_REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide';

/** Relationship kinds a duplicated slide may share with its original. */
const SHAREABLE = new Set([
  'slideLayout',
  'image',
  'media',
  'video',
  'audio',
  'hdphoto',
  'hyperlink',
  'slide',
]);
/** Relationship kinds a duplicated slide gets its own copy of (the part and its rels). */
const COPIED = new Set(['notesSlide', 'chart']);

/** The slide id list (`p:sldIdLst`) in show order, each entry resolved to its slide part. */
export function readSlideList(editor: PptxEditor): SlideList {
  const rel = editor.relationships('').find((item) => item.kind === 'officeDocument');
  const presentationPart = rel?.target ?? 'ppt/presentation.xml';
  if (!editor.has(presentationPart))
    throw new InputError(`no presentation part (${presentationPart}): not a PowerPoint file`, {
      file: editor.file,
      code: 'not_a_deck',
    });
  const xml = editor.text(presentationPart) ?? '';
  const rels = new Map(editor.relationships(presentationPart).map((rel) => [rel.id, rel]));
  const entries: SlideEntry[] = [];
  let inList = false;
  for (const tag of scanTags(xml)) {
    if (tag.name === 'sldIdLst') {
      inList = tag.kind === 'open';
      continue;
    }
    if (!inList || tag.name !== 'sldId' || tag.kind === 'close') continue;
    const raw = xml.slice(tag.start, tag.end);
    const rid = relIdOf(raw);
    const target = rid ? rels.get(rid)?.target : undefined;
    if (!rid || !target || !editor.has(target)) {
      throw new InputError(
        `the slide list names a slide whose part is missing (${rid ?? '?'}); it cannot be perturbed safely`,
        { file: editor.file, code: 'missing_slide_part' },
      );
    }
    entries.push({ part: target, rid, id: Number(tagAttribute(raw, 'id')), raw });
  }
  return { presentationPart, entries };
}

function relIdOf(raw: string): string | undefined {
  const match = /\s[\w.-]+:id\s*=\s*"([^"]*)"/.exec(raw);
  return match?.[1];
}

/** Rewrites `p:sldIdLst` to hold these entries in this order (kept entries byte for byte). */
export function writeSlideList(editor: PptxEditor, list: SlideList, entries: SlideEntry[]): void {
  const xml = editor.text(list.presentationPart) ?? '';
  let open = -1;
  let close = -1;
  for (const tag of scanTags(xml)) {
    if (tag.name !== 'sldIdLst') continue;
    if (tag.kind === 'open') open = tag.end;
    if (tag.kind === 'close') close = tag.start;
  }
  if (open < 0 || close < 0)
    throw new InputError('the presentation has no slide id list', { file: editor.file });
  editor.setText(
    list.presentationPart,
    xml.slice(0, open) + entries.map((entry) => entry.raw).join('') + xml.slice(close),
  );
  list.entries = entries;
}

/** Section lists (`p14:sectionLst`) and custom shows name slides too; they must follow the edit. */
function editSlideReferences(
  editor: PptxEditor,
  list: SlideList,
  edit: (tag: { name: string; raw: string; inSlideList: boolean }) => string | undefined,
): void {
  const xml = editor.text(list.presentationPart) ?? '';
  let out = '';
  let cursor = 0;
  let inList = false;
  for (const tag of scanTags(xml)) {
    if (tag.name === 'sldIdLst') inList = tag.kind === 'open';
    if (tag.kind === 'close') continue;
    const replacement = edit({ name: tag.name, raw: xml.slice(tag.start, tag.end), inSlideList: inList });
    if (replacement === undefined) continue;
    out += xml.slice(cursor, tag.start) + replacement;
    cursor = tag.end;
  }
  editor.setText(list.presentationPart, out + xml.slice(cursor));
}

/** Parts (besides the presentation and the slide's own notes) that link to a slide, e.g. a jump button. */
export function linkedFromElsewhere(editor: PptxEditor, list: SlideList, part: string): boolean {
  const notes = editor.relationships(part).filter((rel) => rel.kind === 'notesSlide');
  const own = new Set(notes.map((rel) => rel.target));
  for (const name of editor.names()) {
    if (!name.endsWith('.rels')) continue;
    const owner = ownerOfRels(name);
    if (owner === list.presentationPart || owner === part || own.has(owner)) continue;
    if (editor.relationships(owner).some((rel) => rel.target === part)) return true;
  }
  return false;
}

function ownerOfRels(relsName: string): string {
  if (relsName === '_rels/.rels') return '';
  const match = /^(.*?)_rels\/([^/]+)\.rels$/.exec(relsName);
  return match ? `${match[1]}${match[2]}` : relsName;
}

/** Why a slide cannot be duplicated safely (parts that must not be shared), or undefined. */
export function duplicationBlocker(editor: PptxEditor, part: string): string | undefined {
  const blocked = editor
    .relationships(part)
    .filter((rel) => rel.target !== undefined && !SHAREABLE.has(rel.kind) && !COPIED.has(rel.kind))
    .map((rel) => rel.kind);
  return blocked.length > 0
    ? `it links parts that cannot be shared or copied safely (${[...new Set(blocked)].join(', ')})`
    : undefined;
}

/** Removes slides from the show and every part only they made reachable (notes, charts, media, overrides). */
export function removeSlides(editor: PptxEditor, list: SlideList, positions: readonly number[]): void {
  const before = editor.reachableParts();
  const doomed = new Set(positions.map((position) => list.entries[position]!));
  const ids = new Set([...doomed].map((entry) => String(entry.id)));
  const rids = new Set([...doomed].map((entry) => entry.rid));
  for (const entry of doomed) editor.removeRelationship(list.presentationPart, entry.rid);
  writeSlideList(
    editor,
    list,
    list.entries.filter((entry) => !doomed.has(entry)),
  );
  editSlideReferences(editor, list, (tag) => {
    if (tag.inSlideList) return undefined;
    if (tag.name === 'sldId' && ids.has(tagAttribute(tag.raw, 'id') ?? '') && !relIdOf(tag.raw)) return '';
    if (tag.name === 'sld' && rids.has(relIdOf(tag.raw) ?? '')) return '';
    return undefined;
  });
  const after = editor.reachableParts();
  editor.removeParts([...before].filter((part) => !after.has(part)));
}

/** Copies a part (and its rels part) under a fresh name, with the same content type. */
function copyPart(editor: PptxEditor, part: string): string {
  const copy = editor.freshPartName(part);
  editor.add(copy, Buffer.from(editor.bytes(part)!), part);
  const rels = editor.bytes(relsPartOf(part));
  if (rels) editor.add(relsPartOf(copy), Buffer.from(rels), relsPartOf(part));
  const type = editor.contentType(part);
  if (type?.override) editor.addContentTypeOverride(copy, type.type);
  return copy;
}

function retarget(editor: PptxEditor, owner: string, id: string, target: string): void {
  editor.editTag(relsPartOf(owner), 'Relationship', ['Id', id], (xml, tag) => {
    const raw = xml.slice(tag.start, tag.end);
    const rewritten = raw.replace(/(\sTarget\s*=\s*)("[^"]*"|'[^']*')/, `$1"${target}"`);
    return xml.slice(0, tag.start) + rewritten + xml.slice(tag.end);
  });
}

/** Adds a copy of a slide right after it (notes and charts copied, layouts and media shared); returns the new part. */
export function duplicateSlide(editor: PptxEditor, list: SlideList, position: number): string {
  const original = list.entries[position]!;
  const copy = copyPart(editor, original.part);
  for (const rel of editor.relationships(copy)) {
    if (!rel.target || !COPIED.has(rel.kind)) continue;
    const partCopy = copyPart(editor, rel.target);
    retarget(editor, copy, rel.id, relativeTarget(copy, partCopy));
    if (rel.kind === 'notesSlide') {
      for (const back of editor.relationships(partCopy)) {
        if (back.kind === 'slide' && back.target === original.part) {
          retarget(editor, partCopy, back.id, relativeTarget(partCopy, copy));
        }
      }
    }
  }
  const rid = editor.addRelationship(
    list.presentationPart,
    SLIDE_REL_TYPE,
    relativeTarget(list.presentationPart, copy),
  );
  const id = Math.max(...list.entries.map((entry) => entry.id)) + 1;
  const raw = original.raw
    .replace(/(\sid\s*=\s*)"[^"]*"/, `$1"${id}"`)
    .replace(/(\s[\w.-]+:id\s*=\s*)"[^"]*"/, `$1"${rid}"`);
  const entries = [...list.entries];
  entries.splice(position + 1, 0, { part: copy, rid, id, raw });
  writeSlideList(editor, list, entries);
  editSlideReferences(editor, list, (tag) => {
    if (tag.inSlideList || tag.name !== 'sldId' || relIdOf(tag.raw)) return undefined;
    if (tagAttribute(tag.raw, 'id') !== String(original.id)) return undefined;
    return tag.raw + tag.raw.replace(/(\sid\s*=\s*)"[^"]*"/, `$1"${id}"`);
  });
  return copy;
}
