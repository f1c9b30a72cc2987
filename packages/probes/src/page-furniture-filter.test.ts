import { describe, expect, it } from 'vitest';
import { isPageFurnitureProbe } from './page-furniture-filter';

const text = 'Riverton Report\nThe pilot replaced 412 gas boilers.\n3';
const furniture = [
  { page: 3, start: 0, end: 15, kind: 'running_header' as const },
  { page: 3, start: text.length - 1, end: text.length, kind: 'page_number' as const },
];
const span = (part: string, from = 0) => {
  const start = text.indexOf(part, from);
  return { start, end: start + part.length };
};

describe('isPageFurnitureProbe', () => {
  it('is true only when every passage lies in furniture (punctuation and whitespace aside)', () => {
    expect(isPageFurnitureProbe(text, [span('Riverton Report')], furniture)).toBe(true);
    expect(isPageFurnitureProbe(text, [span('Report'), span('3', 20)], furniture)).toBe(true);
    expect(isPageFurnitureProbe(text, [span('Riverton Report'), span('412 gas boilers')], furniture)).toBe(
      false,
    );
    // A passage that runs from the header into the body is about the body.
    expect(isPageFurnitureProbe(text, [span('Report\nThe pilot')], furniture)).toBe(false);
  });

  it('is false without furniture or passages', () => {
    expect(isPageFurnitureProbe(text, [span('Riverton Report')], [])).toBe(false);
    expect(isPageFurnitureProbe(text, [], furniture)).toBe(false);
  });
});
