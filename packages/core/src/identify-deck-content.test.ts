import { describe, expect, it } from 'vitest';
import { buildZip } from './build-zip';
import { identifyDeckContent } from './identify-deck-content';

const pptx = (extra: Array<{ name: string; data: string | Buffer }> = []) =>
  buildZip([
    { name: '[Content_Types].xml', data: '<Types/>' },
    { name: 'ppt/presentation.xml', data: '<p:presentation/>' },
    ...extra,
  ]);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('identifyDeckContent', () => {
  it('knows a PDF by its header and a PPTX by its package part, whatever the file is called', () => {
    expect(identifyDeckContent(Buffer.from('%PDF-1.7\n%...'), 'deck.pptx')).toBe('pdf');
    expect(identifyDeckContent(pptx(), 'slides.pdf')).toBe('pptx');
  });

  it('refuses a ZIP that is not a presentation, text, and an empty file', () => {
    const docx = buildZip([{ name: 'word/document.xml', data: '<w:document/>' }]);
    expect(codeOf(() => identifyDeckContent(docx, 'a.pptx'))).toBe('unsupported_media_type');
    expect(codeOf(() => identifyDeckContent(Buffer.from('hello'), 'a.pdf'))).toBe('unsupported_media_type');
    expect(codeOf(() => identifyDeckContent(Buffer.alloc(0), 'a.pdf'))).toBe('empty_file');
  });

  it('stops a zip bomb inside an otherwise valid package at the capped reader', () => {
    const bomb = pptx([{ name: 'ppt/media/bomb.bin', data: Buffer.alloc(40 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(() => identifyDeckContent(bomb, 'bomb.pptx')).toThrow(/bomb\.pptx: .*inflates past/);
    expect(codeOf(() => identifyDeckContent(bomb, 'bomb.pptx'))).toBe('zip_too_large');
  });
});
