/** Stage 5 writes "Slide N", but model judges sometimes write "Slides 2 and 4" or "slides 3-5". */
export function parseCitedSlides(citation: string, slideCount = Number.POSITIVE_INFINITY): number[] {
  const found = new Set<number>();
  for (const match of citation.matchAll(/\bslides?\s*#?\s*(\d+(?:\s*(?:,|&|and|-|–|to)\s*\d+)*)/gi)) {
    for (const part of (match[1] as string).split(/\s*(?:,|&|and)\s*/i)) {
      const [from, to] = part.split(/\s*(?:-|–|to)\s*/i).map(Number);
      if (from === undefined || !Number.isInteger(from)) continue;
      const last = to !== undefined && Number.isInteger(to) && to >= from && to - from <= 50 ? to : from;
      for (let slide = from; slide <= last; slide++) if (slide >= 1 && slide <= slideCount) found.add(slide);
    }
  }
  return [...found].sort((a, b) => a - b);
}
