import { jaccardSimilarity, overlapCoefficient, tokenSet } from './text-tokens';

/** The fields deduplication reads; any probe-like record has them. */
export interface DedupInput {
  question: string;
  answer: string;
  evidence: ReadonlyArray<{ text: string }>;
}

/** Spec 000 thresholds of `deduplicate_probes()`. */
export const DEDUP_THRESHOLDS = {
  evidenceOverlap: 0.8,
  answerSimilarity: 0.7,
  questionSimilarity: 0.9,
} as const;

/** The token sets one probe is compared by, computed once per probe. */
export interface ProbeTokens {
  question: Set<string>;
  answer: Set<string>;
  evidence: Set<string>;
}

export function probeTokens(probe: DedupInput): ProbeTokens {
  return {
    question: tokenSet(probe.question),
    answer: tokenSet(probe.answer),
    evidence: tokenSet(probe.evidence.map((item) => item.text).join(' ')),
  };
}

/**
 * The pair rule of spec 000: duplicates when (evidence token overlap >= 0.80 and answer similarity
 * >= 0.70) or (question similarity >= 0.90 and answer similarity >= 0.70). Evidence overlap is the
 * overlap coefficient of the evidence token sets (all evidence texts of a probe together); question and
 * answer similarity are Jaccard similarities of token sets. Tokens are those of `normalizeText`.
 */
export function isDuplicatePair(a: ProbeTokens, b: ProbeTokens): boolean {
  if (jaccardSimilarity(a.answer, b.answer) < DEDUP_THRESHOLDS.answerSimilarity) return false;
  return (
    overlapCoefficient(a.evidence, b.evidence) >= DEDUP_THRESHOLDS.evidenceOverlap ||
    jaccardSimilarity(a.question, b.question) >= DEDUP_THRESHOLDS.questionSimilarity
  );
}

export interface DedupResult<T> {
  kept: T[];
  /** Each dropped probe (index into the input) with the index of the kept probe it duplicates. */
  dropped: Array<{ index: number; duplicateOf: number }>;
}

/**
 * Greedy keep-first deduplication over the input order: probe i is kept unless it is a duplicate
 * ({@link isDuplicatePair}) of a probe kept before it; a dropped probe names the earliest such kept
 * probe. Callers fix the order (stage 2 sorts the union by source position, then content hash).
 *
 * Candidates come from prefix filtering on the answer tokens, which every duplicate pair must share:
 * both branches of the rule need answer Jaccard >= t (t = 0.70), and J(A,B) >= t implies that the
 * prefixes of length |A| - ceil(t|A|) + 1 and |B| - ceil(t|B|) + 1 of the token sets, sorted by one
 * global order (rarest first), share a token. Only kept probes are indexed. The result is identical to
 * {@link deduplicateProbesAllPairs}, which compares against every kept probe.
 */
export function deduplicateProbes<T extends DedupInput>(probes: readonly T[]): DedupResult<T> {
  const tokens = probes.map(probeTokens);
  const frequency = new Map<string, number>();
  for (const { answer } of tokens)
    for (const token of answer) frequency.set(token, (frequency.get(token) ?? 0) + 1);
  const rarestFirst = (a: string, b: string): number =>
    frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0);

  const index = new Map<string, number[]>();
  const result: DedupResult<T> = { kept: [], dropped: [] };
  const seen = new Int32Array(probes.length).fill(-1);
  for (let i = 0; i < probes.length; i += 1) {
    const prefix = answerPrefix(tokens[i]!.answer, rarestFirst);
    const candidates: number[] = [];
    for (const token of prefix) {
      for (const j of index.get(token) ?? []) {
        if (seen[j] === i) continue;
        seen[j] = i;
        candidates.push(j);
      }
    }
    candidates.sort((a, b) => a - b);
    const duplicateOf = candidates.find((j) => isDuplicatePair(tokens[i]!, tokens[j]!));
    if (duplicateOf !== undefined) {
      result.dropped.push({ index: i, duplicateOf });
      continue;
    }
    result.kept.push(probes[i]!);
    for (const token of prefix) {
      const list = index.get(token);
      if (list) list.push(i);
      else index.set(token, [i]);
    }
  }
  return result;
}

/** The reference definition: greedy keep-first, each probe compared with every kept probe. O(n²). */
export function deduplicateProbesAllPairs<T extends DedupInput>(probes: readonly T[]): DedupResult<T> {
  const tokens = probes.map(probeTokens);
  const keptIndexes: number[] = [];
  const result: DedupResult<T> = { kept: [], dropped: [] };
  for (let i = 0; i < probes.length; i += 1) {
    const duplicateOf = keptIndexes.find((j) => isDuplicatePair(tokens[i]!, tokens[j]!));
    if (duplicateOf !== undefined) result.dropped.push({ index: i, duplicateOf });
    else {
      keptIndexes.push(i);
      result.kept.push(probes[i]!);
    }
  }
  return result;
}

function answerPrefix(answer: ReadonlySet<string>, order: (a: string, b: string) => number): string[] {
  const sorted = [...answer].sort(order);
  // The epsilon keeps float noise in t·|A| from shortening the prefix below the proven bound.
  const required = Math.ceil(DEDUP_THRESHOLDS.answerSimilarity * sorted.length - 1e-9);
  return sorted.slice(0, sorted.length - required + 1);
}
