import type { SourcePageFurniture } from '@xsb/sources';

/** Every evidence passage lies in page furniture (README: Filters): no reader takes a running title from a document. */
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
