const QUOTES_AND_DASHES: Array<[RegExp, string]> = [
  [/[\u2018\u2019\u201a\u201b\u2032\u0060\u00b4]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"'],
  [/[\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d]/g, '-'],
];

/**
 * The normal form every comparison in stage 2 uses: Unicode NFKC, lower case, typographic quotes and
 * dashes mapped to ASCII, then every run of characters that is not a letter or digit becomes one
 * space (so punctuation and whitespace differences vanish), trimmed.
 */
export function normalizeText(text: string): string {
  let value = text.normalize('NFKC').toLowerCase();
  for (const [pattern, replacement] of QUOTES_AND_DASHES) value = value.replace(pattern, replacement);
  return value.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** The distinct tokens of {@link normalizeText}: maximal runs of letters and digits. */
export function tokenSet(text: string): Set<string> {
  const normal = normalizeText(text);
  return new Set(normal === '' ? [] : normal.split(' '));
}

/** Jaccard similarity |A∩B| / |A∪B| of two token sets; 0 when both are empty. */
export function jaccardSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const shared = intersectionSize(a, b);
  return shared / (a.size + b.size - shared);
}

/** Overlap coefficient |A∩B| / min(|A|, |B|) of two token sets; 0 when either is empty. */
export function overlapCoefficient(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  return intersectionSize(a, b) / Math.min(a.size, b.size);
}

function intersectionSize(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const token of small) if (large.has(token)) shared += 1;
  return shared;
}
