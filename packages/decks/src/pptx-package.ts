import { posix } from 'node:path';
import type { ZipArchive } from '@xsb/core';
import { childrenNamed, parseXml, type XmlNode } from './xml-tree';

export interface Relationship {
  id: string;
  type: string;
  /** The resolved part name inside the package, or undefined for external / escaping targets. */
  target: string | undefined;
}

function relationshipKind(relationship: Relationship): string {
  return relationship.type.slice(relationship.type.lastIndexOf('/') + 1);
}

/** Missing parts come back undefined and the caller warns, so one broken link never loses the deck. */
export class PptxPackage {
  private readonly xmlCache = new Map<string, XmlNode | undefined>();
  private readonly relsCache = new Map<string, Map<string, Relationship>>();

  constructor(private readonly zip: ZipArchive) {}

  xml(partName: string): XmlNode | undefined {
    if (this.xmlCache.has(partName)) return this.xmlCache.get(partName);
    const text = this.zip.readText(partName);
    const node = text === undefined ? undefined : parseXml(text);
    this.xmlCache.set(partName, node);
    return node;
  }

  relationships(partName: string): Map<string, Relationship> {
    const cached = this.relsCache.get(partName);
    if (cached) return cached;
    const directory = posix.dirname(partName);
    const relsName = posix.join(directory, '_rels', `${posix.basename(partName)}.rels`);
    const root = this.xml(relsName);
    const map = new Map<string, Relationship>();
    for (const item of childrenNamed(root, 'Relationship')) {
      const id = item.attrs.Id ?? '';
      const external = item.attrs.TargetMode === 'External';
      const rawTarget = item.attrs.Target ?? '';
      let target: string | undefined;
      if (!external && rawTarget) {
        const resolved = rawTarget.startsWith('/')
          ? posix.normalize(rawTarget.slice(1))
          : posix.normalize(posix.join(directory, rawTarget));
        target = resolved.startsWith('..') ? undefined : resolved;
      }
      map.set(id, { id, type: item.attrs.Type ?? '', target });
    }
    this.relsCache.set(partName, map);
    return map;
  }

  relatedOfKind(partName: string, kind: string): Relationship | undefined {
    for (const relationship of this.relationships(partName).values()) {
      if (relationshipKind(relationship) === kind) return relationship;
    }
    return undefined;
  }
}
