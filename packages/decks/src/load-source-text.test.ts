import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashBytes } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { type SourcePageFurniture, sourceContextSchema } from '@xsb/sources';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSourceText, withoutPageFurniture } from './load-source-text';
import { planLexicalOutline } from './plan-lexical-outline';

// Two PDF pages as stage 1 joins them: the second opens with its running header (page number and
// the section's name in capitals), which a reader skips.
const PAGE_1 = `Einführung in die Topologie

1.1 Topologische Räume
Ein topologischer Raum ist ein Paar aus einer Menge und einer Topologie auf dieser Menge.
Jede Vereinigung offener Mengen ist wieder eine offene Menge in diesem Raum.
Der Durchschnitt von endlich vielen offenen Mengen ist ebenfalls eine offene Menge.`;
const HEADER = '12 1.2. ÜBERLAGERUNGEN';
const PAGE_2 = `${HEADER}
Eine Überlagerung ist eine stetige surjektive Abbildung mit lokal trivialen Fasern.
Jede Überlagerung eines einfach zusammenhängenden Raumes ist eine triviale Überlagerung.
Die Fasern einer Überlagerung haben über einem zusammenhängenden Raum dieselbe Mächtigkeit.`;
const TEXT = `${PAGE_1}\n\n${PAGE_2}`;

const FURNITURE: SourcePageFurniture[] = [
  { page: 2, start: TEXT.indexOf(HEADER), end: TEXT.indexOf(HEADER) + HEADER.length, kind: 'running_header' },
];

describe('the baseline source text leaves page furniture out', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir());
  });
  afterEach(() => cleanup());

  async function writeContext(text: string, furniture: SourcePageFurniture[], textSha = hashBytes(text)) {
    const contextFile = join(dir, 'source_context.txt');
    await writeFile(contextFile, text);
    const record = sourceContextSchema.parse({
      case_id: 'topo',
      source_file: 'sources/topo/topo.pdf',
      source_type: 'pdf',
      source_sha256: 'a'.repeat(64),
      parser: 'unpdf',
      max_chars: 1_000_000,
      original_chars: text.length,
      chars: text.length,
      truncated: false,
      text_sha256: textSha,
      page_count: 2,
      pages: [
        { page: 1, start: 0, end: PAGE_1.length },
        { page: 2, start: PAGE_1.length + 2, end: text.length },
      ],
      page_furniture: furniture,
    });
    await writeFile(join(dir, 'source_context.json'), JSON.stringify(record));
    return contextFile;
  }

  it('never makes a running header a slide title (the text without its marked lines)', async () => {
    // Without the furniture record the running header reads as a section heading.
    const raw = planLexicalOutline(TEXT, { language: 'de', fallbackTitle: 'topo' });
    expect(raw.slides.map((slide) => slide.title)).toContain('1.2. ÜBERLAGERUNGEN');

    const contextFile = await writeContext(TEXT, FURNITURE);
    const text = await loadSourceText(join(dir, 'missing.pdf'), { sourceContextFile: contextFile });
    expect(text).not.toContain(HEADER);
    expect(text).toContain('Einführung in die Topologie\n\n1.1 Topologische Räume');
    const outline = planLexicalOutline(text, { language: 'de', fallbackTitle: 'topo' });
    const titles = outline.slides.map((slide) => slide.title);
    expect(titles).not.toContain('1.2. ÜBERLAGERUNGEN');
    expect(titles[0]).toBe('Topologische Räume');
    // the page's sentences stay, under the section they belong to
    expect(outline.slides.flatMap((slide) => slide.bullets).join('\n')).toContain('Überlagerung');
  });

  it('keeps every line when the record describes another text (its offsets would cut the wrong lines)', async () => {
    const contextFile = await writeContext(TEXT, FURNITURE, 'b'.repeat(64));
    expect(await loadSourceText(join(dir, 'missing.pdf'), { sourceContextFile: contextFile })).toBe(TEXT);
  });

  it('removes each marked line with its line break and nothing else', () => {
    expect(withoutPageFurniture(TEXT, FURNITURE)).toBe(`${PAGE_1}\n\n${PAGE_2.slice(HEADER.length + 1)}`);
    expect(withoutPageFurniture('a\nb\nc', [{ page: 1, start: 4, end: 5, kind: 'page_number' }])).toBe(
      'a\nb\n',
    );
    expect(withoutPageFurniture(TEXT, [])).toBe(TEXT);
  });
});
