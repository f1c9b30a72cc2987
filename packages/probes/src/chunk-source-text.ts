/** One window of the source sent to the generator in one prompt. */
export interface SourceChunk {
  /** 0-based position among the chunks. */
  index: number;
  /** Offset of the first character of the window in the source (0-based, inclusive). */
  start: number;
  /** Offset just past the last character of the window (exclusive), so `source.slice(start, end)` is the window. */
  end: number;
  /** The window with its `[Source chunk chars start-end]` prefix line, as sent to the generator. */
  text: string;
}

/** Spec 000 `chunk_source_text()` (rules: README, Chunking). */
export function chunkSourceText(text: string, chunkChars: number, overlap: number): SourceChunk[] {
  const make = (index: number, start: number, end: number): SourceChunk => ({
    index,
    start,
    end,
    text: `[Source chunk chars ${start}-${end}]\n${text.slice(start, end)}`,
  });
  if (!(chunkChars > 0) || text.length <= chunkChars) return [make(0, 0, text.length)];
  const size = Math.floor(chunkChars);
  const step = Math.max(1, size - Math.max(0, Math.floor(overlap)));
  const chunks: SourceChunk[] = [];
  for (let start = 0; ; start += step) {
    const end = Math.min(start + size, text.length);
    chunks.push(make(chunks.length, start, end));
    if (end >= text.length) break;
  }
  return chunks;
}
