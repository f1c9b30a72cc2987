import { basename, extname } from 'node:path';
import { InputError, readUtf8Text } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { MaterialText } from './checklist-item-judge';

/**
 * Material files as judge text: markdown/text as is, PDFs page by page through the deck reader
 * (which reads any PDF's per-page text), each page headed so the judge can cite it.
 */
export async function readMaterials(paths: string[]): Promise<MaterialText[]> {
  const out: MaterialText[] = [];
  for (const path of paths) {
    const extension = extname(path).toLowerCase();
    if (extension === '.md' || extension === '.txt' || extension === '.markdown') {
      out.push({ name: basename(path), text: await readUtf8Text(path) });
    } else if (extension === '.pdf') {
      const pdf = await readDeck(path);
      const pages = pdf.slides.map((page) => `--- Page ${page.index} ---\n${page.visible_text.trim()}`);
      out.push({ name: basename(path), text: pages.join('\n\n') });
    } else {
      throw new InputError('unsupported material type (expected .md, .txt or .pdf)', { file: path });
    }
  }
  return out;
}
