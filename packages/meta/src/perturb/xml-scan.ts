/** A start, end or empty-element tag of an XML document, with its byte-free character offsets. */
export interface XmlTag {
  kind: 'open' | 'close' | 'empty';
  /** Local name (`sp` for `p:sp`). */
  name: string;
  /** Offset of `<` and one past `>`. */
  start: number;
  end: number;
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

/**
 * The tags of an XML document with their offsets, so an edit splices one place and leaves every other
 * byte (a parser + serializer would reformat the part). Enough for machine-written OOXML.
 */
export function* scanTags(xml: string): Generator<XmlTag> {
  let position = 0;
  while (true) {
    const open = xml.indexOf('<', position);
    if (open < 0) return;
    if (xml.startsWith('<!--', open)) {
      const close = xml.indexOf('-->', open + 4);
      position = close < 0 ? xml.length : close + 3;
      continue;
    }
    if (xml.startsWith('<![CDATA[', open)) {
      const close = xml.indexOf(']]>', open + 9);
      position = close < 0 ? xml.length : close + 3;
      continue;
    }
    let cursor = open + 1;
    let quote = '';
    while (cursor < xml.length) {
      const char = xml[cursor]!;
      if (quote) {
        if (char === quote) quote = '';
      } else if (char === '"' || char === "'") quote = char;
      else if (char === '>') break;
      cursor += 1;
    }
    const end = cursor + 1;
    position = end;
    const second = xml[open + 1];
    if (second === '?' || second === '!') continue;
    if (second === '/') {
      const name = xml.slice(open + 2, cursor).trim();
      yield { kind: 'close', name: localName(name), start: open, end };
      continue;
    }
    const body = xml.slice(open + 1, cursor);
    const nameEnd = body.search(/[\s/]/);
    const name = nameEnd < 0 ? body : body.slice(0, nameEnd);
    yield { kind: body.endsWith('/') ? 'empty' : 'open', name: localName(name), start: open, end };
  }
}

/** An attribute of a tag's text (`<a:rPr sz="1800" …>`), by its exact (prefixed) name. */
export function tagAttribute(tag: string, name: string): string | undefined {
  const match = new RegExp(
    `\\s${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`,
  ).exec(tag);
  if (!match) return undefined;
  return decodeXmlText(match[1] ?? match[2] ?? '');
}

/** The namespace prefix of a tag's text (`a:` for `<a:rPr …>`), or `''`. */
export function prefixOf(rawTag: string): string {
  const match = /^<([\w.-]+):/.exec(rawTag);
  return match ? `${match[1]}:` : '';
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return NAMED_ENTITIES[entity] ?? whole;
  });
}

/** Escapes element text (quotes need no escaping outside attributes). */
export function encodeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function encodeXmlAttribute(text: string): string {
  return encodeXmlText(text).replace(/"/g, '&quot;');
}

export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping splices (in any order) to a string. */
export function applySplices(source: string, splices: readonly Splice[]): string {
  const sorted = [...splices].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i]!.start < sorted[i - 1]!.end) {
      throw new RangeError(
        `overlapping edits at ${sorted[i - 1]!.start}-${sorted[i - 1]!.end} and ${sorted[i]!.start}`,
      );
    }
  }
  let out = '';
  let cursor = 0;
  for (const splice of sorted) {
    out += source.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  return out + source.slice(cursor);
}
