import type { SourcePageFurniture } from '@xsb/core';

/**
 * True when every evidence passage of a probe lies in page furniture: once the running headers,
 * footers and page numbers it overlaps are taken out, nothing but whitespace and punctuation is left
 * of each passage (`text.slice(start, end)`). Such a probe asks about a page's furniture ("What is the
 * running title of page 4?"), which no reader takes from a document. A passage that reaches into the
 * body is kept.
 */
export function isPageFurnitureProbe(
  text: string,
  passages: ReadonlyArray<{ start: number; end: number }>,
  furniture: readonly SourcePageFurniture[],
): boolean {
  if (furniture.length === 0 || passages.length === 0) return false;
  return passages.every((passage) => /^[\s\p{P}\p{S}]*$/u.test(outsideFurniture(text, passage, furniture)));
}

function outsideFurniture(
  text: string,
  passage: { start: number; end: number },
  furniture: readonly SourcePageFurniture[],
): string {
  const lines = furniture
    .filter((line) => line.start < passage.end && line.end > passage.start)
    .sort((a, b) => a.start - b.start);
  let rest = '';
  let at = passage.start;
  for (const line of lines) {
    if (line.start > at) rest += text.slice(at, line.start);
    at = Math.max(at, line.end);
  }
  if (at < passage.end) rest += text.slice(at, passage.end);
  return rest;
}
