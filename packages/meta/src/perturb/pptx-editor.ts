import { posix } from 'node:path';
import { buildZip, InputError, ZipArchive } from '@xsb/core';
import { encodeXmlAttribute, scanTags, tagAttribute, type XmlTag } from './xml-scan';

export interface PackageRelationship {
  id: string;
  /** Last segment of the type URI: `slide`, `notesSlide`, `chart`, `image` … */
  kind: string;
  /** The resolved part name, or undefined for an external target. */
  target: string | undefined;
}

/** Entries stored rather than deflated: already-compressed media gain nothing from deflate. */
const STORED = /\.(png|jpe?g|gif|mp4|m4v|mov|wdp|jfif|emf\.gz|zip|xlsx|docx|pptx)$/i;

/** The `_rels/<name>.rels` part that holds a part's relationships (`''` = the package root). */
export function relsPartOf(partName: string): string {
  if (partName === '') return '_rels/.rels';
  return posix.join(posix.dirname(partName), '_rels', `${posix.basename(partName)}.rels`);
}

/** A relationship target as written, relative to the part that holds it. */
export function relativeTarget(fromPart: string, toPart: string): string {
  return posix.relative(posix.dirname(fromPart), toPart);
}

/** A PPTX opened for editing: untouched parts are written back byte for byte, in order, without timestamps. */
export class PptxEditor {
  private constructor(
    private readonly entries: Array<{ name: string; data: Buffer }>,
    readonly file: string,
  ) {}

  static open(bytes: Buffer, file: string): PptxEditor {
    const zip = ZipArchive.open(bytes, file);
    const entries = zip.names().map((name) => ({ name, data: zip.read(name) as Buffer }));
    const editor = new PptxEditor(entries, file);
    if (!editor.has('[Content_Types].xml')) {
      throw new InputError('not an OOXML package (no [Content_Types].xml)', { file, code: 'not_a_deck' });
    }
    return editor;
  }

  names(): string[] {
    return this.entries.map((entry) => entry.name);
  }

  has(name: string): boolean {
    return this.entries.some((entry) => entry.name === name);
  }

  bytes(name: string): Buffer | undefined {
    return this.entries.find((entry) => entry.name === name)?.data;
  }

  text(name: string): string | undefined {
    return this.bytes(name)?.toString('utf8');
  }

  setText(name: string, text: string): void {
    const entry = this.entries.find((item) => item.name === name);
    if (!entry) throw new RangeError(`no part ${name} to change`);
    entry.data = Buffer.from(text, 'utf8');
  }

  /** Adds a part after `after` (or at the end). */
  add(name: string, data: Buffer | string, after?: string): void {
    if (this.has(name)) throw new RangeError(`part ${name} exists already`);
    const entry = { name, data: typeof data === 'string' ? Buffer.from(data, 'utf8') : data };
    const index = after === undefined ? -1 : this.entries.findIndex((item) => item.name === after);
    if (index < 0) this.entries.push(entry);
    else this.entries.splice(index + 1, 0, entry);
  }

  remove(name: string): void {
    const index = this.entries.findIndex((entry) => entry.name === name);
    if (index >= 0) this.entries.splice(index, 1);
  }

  relationships(partName: string): PackageRelationship[] {
    const xml = this.text(relsPartOf(partName));
    if (xml === undefined) return [];
    const directory = partName === '' ? '' : posix.dirname(partName);
    const out: PackageRelationship[] = [];
    for (const tag of scanTags(xml)) {
      if (tag.kind === 'close' || tag.name !== 'Relationship') continue;
      const raw = xml.slice(tag.start, tag.end);
      const type = tagAttribute(raw, 'Type') ?? '';
      const rawTarget = tagAttribute(raw, 'Target') ?? '';
      const external = tagAttribute(raw, 'TargetMode') === 'External';
      let target: string | undefined;
      if (!external && rawTarget) {
        const resolved = rawTarget.startsWith('/')
          ? posix.normalize(rawTarget.slice(1))
          : posix.normalize(posix.join(directory, rawTarget));
        target = resolved.startsWith('..') ? undefined : resolved;
      }
      out.push({ id: tagAttribute(raw, 'Id') ?? '', kind: type.slice(type.lastIndexOf('/') + 1), target });
    }
    return out;
  }

  /** Appends a relationship to a part's rels part and returns its new id (`rId<n>`, unused). */
  addRelationship(partName: string, type: string, target: string): string {
    const relsName = relsPartOf(partName);
    const xml = this.text(relsName);
    if (xml === undefined) throw new RangeError(`${partName} has no relationships part`);
    const used = new Set(this.relationships(partName).map((rel) => rel.id));
    let number = used.size + 1;
    while (used.has(`rId${number}`)) number += 1;
    const id = `rId${number}`;
    const close = xml.lastIndexOf('</Relationships>');
    if (close < 0) throw new InputError(`${relsName} is not a relationships part`, { file: this.file });
    const element = `<Relationship Id="${id}" Type="${encodeXmlAttribute(type)}" Target="${encodeXmlAttribute(target)}"/>`;
    this.setText(relsName, xml.slice(0, close) + element + xml.slice(close));
    return id;
  }

  /** Rewrites a part at the first `name` tag whose `attribute` is `value` (`edit` returns the part's new text). */
  editTag(
    part: string,
    name: string,
    [attribute, value]: [string, string],
    edit: (xml: string, tag: XmlTag) => string,
  ): void {
    const xml = this.text(part) ?? '';
    for (const tag of scanTags(xml)) {
      if (tag.kind === 'close' || tag.name !== name) continue;
      if (tagAttribute(xml.slice(tag.start, tag.end), attribute)?.replace(/^\//, '') !== value) continue;
      this.setText(part, edit(xml, tag));
      return;
    }
  }

  removeRelationship(partName: string, id: string): void {
    this.editTag(relsPartOf(partName), 'Relationship', ['Id', id], (xml, tag) => {
      const close = '</Relationship>';
      const end = tag.kind === 'open' ? xml.indexOf(close, tag.end) + close.length : tag.end;
      return xml.slice(0, tag.start) + xml.slice(end);
    });
  }

  /** The content type `[Content_Types].xml` gives a part (its Override, else the Default of its extension). */
  contentType(partName: string): { type: string; override: boolean } | undefined {
    const xml = this.text('[Content_Types].xml') ?? '';
    let fallback: string | undefined;
    const extension = posix.extname(partName).slice(1).toLowerCase();
    for (const tag of scanTags(xml)) {
      if (tag.kind === 'close') continue;
      const raw = xml.slice(tag.start, tag.end);
      if (tag.name === 'Override' && tagAttribute(raw, 'PartName')?.replace(/^\//, '') === partName) {
        return { type: tagAttribute(raw, 'ContentType') ?? '', override: true };
      }
      if (tag.name === 'Default' && tagAttribute(raw, 'Extension')?.toLowerCase() === extension) {
        fallback = tagAttribute(raw, 'ContentType');
      }
    }
    return fallback === undefined ? undefined : { type: fallback, override: false };
  }

  addContentTypeOverride(partName: string, type: string): void {
    const xml = this.text('[Content_Types].xml') ?? '';
    const close = xml.lastIndexOf('</Types>');
    const element = `<Override PartName="/${encodeXmlAttribute(partName)}" ContentType="${encodeXmlAttribute(type)}"/>`;
    this.setText('[Content_Types].xml', xml.slice(0, close) + element + xml.slice(close));
  }

  removeContentTypeOverride(partName: string): void {
    this.editTag('[Content_Types].xml', 'Override', ['PartName', partName], (xml, tag) => {
      return xml.slice(0, tag.start) + xml.slice(tag.end);
    });
  }

  reachableParts(): Set<string> {
    const seen = new Set<string>();
    const queue = [''];
    while (queue.length > 0) {
      const part = queue.pop()!;
      for (const rel of this.relationships(part)) {
        if (rel.target === undefined || seen.has(rel.target) || !this.has(rel.target)) continue;
        seen.add(rel.target);
        queue.push(rel.target);
      }
    }
    return seen;
  }

  /** Removes parts (their rels parts and content-type overrides too). */
  removeParts(parts: Iterable<string>): void {
    for (const part of parts) {
      this.remove(part);
      this.remove(relsPartOf(part));
      this.removeContentTypeOverride(part);
    }
  }

  /** A new part name `<dir>/<stem><n>.<ext>` not used yet, numbered after the highest in use. */
  freshPartName(like: string): string {
    const directory = posix.dirname(like);
    const match = /^(.*?)(\d*)(\.[^.]+)$/.exec(posix.basename(like));
    const stem = match?.[1] ?? posix.basename(like);
    const extension = match?.[3] ?? '';
    let highest = 0;
    for (const name of this.names()) {
      if (posix.dirname(name) !== directory) continue;
      const own = new RegExp(
        `^${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\d+)${extension.replace('.', '\\.')}$`,
      ).exec(posix.basename(name));
      if (own) highest = Math.max(highest, Number(own[1]));
    }
    return posix.join(directory, `${stem}${highest + 1}${extension}`);
  }

  toBuffer(): Buffer {
    return buildZip(
      this.entries.map((entry) => ({ name: entry.name, data: entry.data, store: STORED.test(entry.name) })),
    );
  }
}
