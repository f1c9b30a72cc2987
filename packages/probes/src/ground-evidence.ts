import type { SourcePageSpan } from '@xsb/sources';
import { normalizeText } from './text-tokens';

/** Where one evidence quote was found in the source. */
export interface EvidenceMatch {
  /** Offset in the original source text of the first matched character. */
  start: number;
  /** Offset just past the last matched character, so `source.slice(start, end)` is the passage. */
  end: number;
  /** 1-based PDF page holding `start`, when the source has pages. */
  page: number | undefined;
}

/**
 * The source in normal form (see `normalizeText`) with, for each normal-form character, the offset of
 * the original character it came from, so a match can be mapped back to a position and a PDF page.
 * Built once per case; each lookup is a substring search on whole-token boundaries.
 */
export class GroundingIndex {
  private readonly normal: string;
  private readonly origin: Int32Array;

  constructor(
    source: string,
    private readonly pages: readonly SourcePageSpan[] = [],
  ) {
    const parts: string[] = [' '];
    const origin: number[] = [0];
    let lastWasSpace = true;
    const pushSpace = (offset: number): void => {
      if (lastWasSpace) return;
      parts.push(' ');
      origin.push(offset);
      lastWasSpace = true;
    };
    // One base character with its combining marks at a time, so decomposed accents normalise as in
    // `normalizeText` of the whole quote; ASCII takes a fast path (most sources are mostly ASCII).
    for (const match of source.matchAll(/\P{M}\p{M}*|\p{M}+/gu)) {
      const segment = match[0];
      const offset = match.index;
      const code = segment.charCodeAt(0);
      if (segment.length === 1 && code < 128) {
        if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122)) {
          parts.push(segment);
          origin.push(offset);
          lastWasSpace = false;
        } else if (code >= 65 && code <= 90) {
          parts.push(String.fromCharCode(code + 32));
          origin.push(offset);
          lastWasSpace = false;
        } else pushSpace(offset);
        continue;
      }
      const normal = normalizeText(segment);
      if (normal === '') {
        pushSpace(offset);
        continue;
      }
      for (const piece of normal) {
        parts.push(piece);
        origin.push(offset);
      }
      lastWasSpace = false;
    }
    pushSpace(source.length);
    this.normal = parts.join('');
    this.origin = Int32Array.from(origin);
  }

  /** Finds `quote` (normalised) as a whole-token run in the source, or null when it is absent or empty. */
  find(quote: string): EvidenceMatch | null {
    const needle = normalizeText(quote);
    if (needle === '') return null;
    const at = this.normal.indexOf(` ${needle} `);
    if (at === -1) return null;
    const start = this.origin[at + 1]!;
    // The space after the match stands for the first character that is not part of it.
    const end = this.origin[at + 1 + needle.length]!;
    return { start, end, page: this.pageAt(start) };
  }

  private pageAt(offset: number): number | undefined {
    for (const span of this.pages) if (offset >= span.start && offset < span.end) return span.page;
    return this.pages.length > 0 ? this.pages[this.pages.length - 1]!.page : undefined;
  }
}
