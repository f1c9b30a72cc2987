import { XMLParser } from 'fast-xml-parser';

/** An XML element with its local name (namespace prefix dropped), raw attributes and children in order. */
export interface XmlNode {
  name: string;
  /** Attributes keyed as written (`r:id`, `type`). */
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

function convert(raw: OrderedNode[]): XmlNode[] {
  const nodes: XmlNode[] = [];
  for (const item of raw) {
    for (const key of Object.keys(item)) {
      if (key === ':@') continue;
      const value = item[key];
      if (key === '#text') {
        nodes.push({ name: '#text', attrs: {}, children: [], text: String(value) });
      } else {
        nodes.push({
          name: localName(key),
          attrs: item[':@'] ?? {},
          children: Array.isArray(value) ? convert(value as OrderedNode[]) : [],
          text: '',
        });
      }
    }
  }
  return nodes;
}

export function parseXml(xml: string): XmlNode | undefined {
  const raw = parser.parse(xml) as OrderedNode[];
  return convert(raw).find((node) => node.name !== '#text');
}

export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((item) => item.name === name);
}

export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((item) => item.name === name) : [];
}

export function path(node: XmlNode | undefined, ...names: string[]): XmlNode | undefined {
  let current = node;
  for (const name of names) current = child(current, name);
  return current;
}

export function descendants(node: XmlNode | undefined, name: string, out: XmlNode[] = []): XmlNode[] {
  if (!node) return out;
  for (const item of node.children) {
    if (item.name === name) out.push(item);
    descendants(item, name, out);
  }
  return out;
}

/** The value of an attribute with that local name and any namespace prefix (`r:id`, `r:embed`). */
export function prefixedAttr(node: XmlNode | undefined, local: string): string | undefined {
  if (!node) return undefined;
  for (const [key, value] of Object.entries(node.attrs)) {
    const colon = key.indexOf(':');
    if (colon >= 0 && key.slice(colon + 1) === local) return value;
  }
  return undefined;
}

/** Concatenated text of every `t` element below the node (DrawingML runs and fields). */
export function collectText(node: XmlNode | undefined): string {
  return descendants(node, 't')
    .map((item) => item.children.map((text) => text.text).join(''))
    .join(' ');
}

export function nodeText(node: XmlNode | undefined): string {
  return node
    ? node.children.map((item) => (item.name === '#text' ? item.text : nodeText(item))).join('')
    : '';
}
