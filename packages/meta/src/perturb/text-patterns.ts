// In one place so docs/meta-evaluation.md and the code cannot drift apart.

/** A number written with digits, not glued to letters (`H2O`, `x86` are not numbers here). */
export const NUMBER_PATTERN = /(?<![\p{L}\p{N}_.,])\d+(?:[.,]\d+)*(?![\p{L}\p{N}_])/gu;

/** A run of capitalised words (`Stanford University`), at least three letters, not starting a sentence. */
export const NAMED_TERM_PATTERN =
  /(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}'’-]{2,}(?:\s+\p{Lu}[\p{L}\p{N}'’-]+)*/gu;

/** Source references: sections, chapters, tables, figures, equations, appendices, pages, numbered and author–year citations, "Source: …". */
export const CITATION_PATTERN =
  /\((?:see\s+)?(?:Section|Sec\.|§|Chapter|Ch\.|Table|Tab\.|Figure|Fig\.|Eq\.|Equation|Appendix|pp?\.)\s*[\dA-Z]+(?:[.\-–]\d+)*[a-z]?\)|\b(?:Section|Sec\.|Chapter|Ch\.|Table|Tab\.|Figure|Fig\.|Eq\.|Equation|Appendix)\s*\d+(?:\.\d+)*[a-z]?|§\s*\d+(?:\.\d+)*|\bpp?\.\s*\d+(?:\s*[-–]\s*\d+)?|\[\d+(?:\s*[,–-]\s*\d+)*\]|\([A-Z][A-Za-z-]+(?:\s+et al\.)?(?:\s+(?:and|&)\s+[A-Z][A-Za-z-]+)?,?\s+\d{4}[a-z]?\)|\b(?:Source|Sources|Quelle|来源)\s*[:：][^\n]*/gu;

/** Sentence-initial words are capitalised for grammar, not because they name something. */
export function startsSentence(text: string, index: number, runStartsParagraph: boolean): boolean {
  const before = text.slice(0, index).trimEnd();
  if (before === '') return runStartsParagraph;
  return /[.!?…:;•\-–—]$/.test(before);
}

/** `pad_words` filler: no number, name or claim, so only efficiency should fall. */
export const FILLER_SENTENCES = [
  'In other words, this is basically the case.',
  'As a matter of fact, it is what it is.',
  'Needless to say, this is worth keeping in mind.',
  'It goes without saying that this is, in a sense, how things are.',
  'All things considered, this is essentially how it works.',
  'Generally speaking, that is more or less the point here.',
] as const;

/** `inject_claims` sentences: figures drawn so they do not occur in the deck, so the source cannot support them. */
export const FABRICATED_CLAIM_TEMPLATES = [
  'A {Y} follow-up study found that {T} cut operating costs by {P} percent across {N} sites.',
  '{T} was independently replicated in {N} countries, with {P} percent of trials reporting gains.',
  'Adoption of {T} is projected to reach {N} million users by {Y}.',
  'An audit in {Y} showed that {T} failed in {P} percent of {N} reviewed cases.',
  '{T} received a {N} million euro grant from a national research council in {Y}.',
] as const;

export function fillTemplate(template: string, values: Record<'T' | 'Y' | 'P' | 'N', string>): string {
  return template.replace(/\{([TYPN])\}/g, (_, key: 'T' | 'Y' | 'P' | 'N') => values[key]);
}

/** A different digit string of the same shape: one digit changed, never to itself, never a leading zero. */
export function corruptNumber(number: string, random: () => number): string {
  const digits = [...number].map((char, index) => ({ char, index })).filter((item) => /\d/.test(item.char));
  const pick = digits[Math.floor(random() * digits.length)]!;
  const old = Number(pick.char);
  let next = (old + 1 + Math.floor(random() * 9)) % 10;
  if (next === old) next = (old + 1) % 10;
  const leading = pick.index === 0 && digits.length > 1 && /\d/.test(number[1] ?? '');
  if (leading && next === 0) next = old === 1 ? 2 : 1;
  return number.slice(0, pick.index) + String(next) + number.slice(pick.index + 1);
}

/** Removes a citation match from a text and tidies the spaces and punctuation it leaves. */
export function removeSpan(text: string, start: number, end: number): string {
  let before = text.slice(0, start);
  let after = text.slice(end);
  if (/\s$/.test(before) && (/^\s/.test(after) || /^[.,;:!?)]/.test(after) || after === ''))
    before = before.replace(/\s+$/, '');
  if (before.endsWith('(') && after.startsWith(')')) {
    before = before.slice(0, -1).replace(/\s+$/, '');
    after = after.slice(1);
  }
  if (/[,;:]\s*$/.test(before) && (/^\s*[.)]/.test(after) || after.trim() === ''))
    before = before.replace(/[,;:]\s*$/, '');
  return before + after;
}

/** A seeded sample of k indices out of n (partial Fisher–Yates), returned in increasing order. */
export function sampleIndices(n: number, k: number, random: () => number): number[] {
  const pool = Array.from({ length: n }, (_, index) => index);
  for (let i = 0; i < k; i += 1) {
    const j = i + Math.floor(random() * (n - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, k).sort((a, b) => a - b);
}

/** Units a severity changes: the share s of n, rounded, at least one and at most n. */
export function unitsFor(severity: number, n: number, minimum = 1): number {
  return Math.min(n, Math.max(minimum, Math.round(severity * n)));
}

/** A random permutation with no fixed point (Sattolo's algorithm: one cycle through all items). */
export function derangement(n: number, random: () => number): number[] {
  const order = Array.from({ length: n }, (_, index) => index);
  for (let i = n - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
