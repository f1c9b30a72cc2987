/** Lower-cased word tokens (letters and digits), as ROUGE compares them. */
export function slideWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (const word of a) {
    for (let j = 1; j <= b.length; j++)
      current[j] = word === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/**
 * ROUGE-L F1 (Lin 2004) of two token lists: the longest common subsequence over each length, P and R
 * combined with β = 1 as the usual implementations (rouge-score) default. Two empty texts share nothing: 0.
 */
export function rougeL(candidate: readonly string[], reference: readonly string[]): number {
  if (candidate.length === 0 || reference.length === 0) return 0;
  const lcs = lcsLength(candidate, reference);
  if (lcs === 0) return 0;
  const precision = lcs / candidate.length;
  const recall = lcs / reference.length;
  return (2 * precision * recall) / (precision + recall);
}
