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

/** The pair rule of spec 000 (README: Deduplication). */
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
 * Greedy keep-first dedup in input order, equal to {@link deduplicateProbesAllPairs}: only candidate pairs
 * (prefix filtering, Chaudhuri et al. 2006 / Bayardo et al. 2007; the proof is in the README) are verified.
 */
export function deduplicateProbes<T extends DedupInput>(probes: readonly T[]): DedupResult<T> {
  const tokens = probes.map(probeTokens);
  const order = {
    answer: rarestFirst(tokens.map((t) => t.answer)),
    question: rarestFirst(tokens.map((t) => t.question)),
    evidence: rarestFirst(tokens.map((t) => t.evidence)),
  };
  const answerIndex = new PostingIndex();
  const questionIndex = new PostingIndex();
  const evidencePrefixIndex = new PostingIndex();
  const evidenceFullIndex = new PostingIndex();
  const answerStamp = new Int32Array(probes.length).fill(-1);
  const candidateStamp = new Int32Array(probes.length).fill(-1);
  const result: DedupResult<T> = { kept: [], dropped: [] };

  for (let i = 0; i < probes.length; i += 1) {
    const own = tokens[i]!;
    const answerPrefix = prefix(
      own.answer,
      order.answer,
      jaccardBound(own.answer.size, DEDUP_THRESHOLDS.answerSimilarity),
    );
    const questionPrefix = prefix(
      own.question,
      order.question,
      jaccardBound(own.question.size, DEDUP_THRESHOLDS.questionSimilarity),
    );
    const evidencePrefix = prefix(own.evidence, order.evidence, overlapBound(own.evidence.size));

    answerIndex.visit(answerPrefix, (j) => {
      answerStamp[j] = i;
    });
    const candidates: number[] = [];
    const consider = (j: number): void => {
      if (answerStamp[j] !== i || candidateStamp[j] === i) return;
      candidateStamp[j] = i;
      candidates.push(j);
    };
    questionIndex.visit(questionPrefix, consider);
    evidencePrefixIndex.visit(own.evidence, consider);
    evidenceFullIndex.visit(evidencePrefix, consider);

    candidates.sort((a, b) => a - b);
    const duplicateOf = candidates.find((j) => isDuplicatePair(own, tokens[j]!));
    if (duplicateOf !== undefined) {
      result.dropped.push({ index: i, duplicateOf });
      continue;
    }
    result.kept.push(probes[i]!);
    answerIndex.add(answerPrefix, i);
    questionIndex.add(questionPrefix, i);
    evidencePrefixIndex.add(evidencePrefix, i);
    evidenceFullIndex.add(own.evidence, i);
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

/** Token → ids of kept probes. */
class PostingIndex {
  private readonly postings = new Map<string, number[]>();

  add(tokens: Iterable<string>, id: number): void {
    for (const token of tokens) {
      const list = this.postings.get(token);
      if (list) list.push(id);
      else this.postings.set(token, [id]);
    }
  }

  visit(tokens: Iterable<string>, each: (id: number) => void): void {
    for (const token of tokens) for (const id of this.postings.get(token) ?? []) each(id);
  }
}

/** Rank of each token in the global order: rarest first, ties alphabetical. */
function rarestFirst(sets: ReadonlyArray<ReadonlySet<string>>): Map<string, number> {
  const frequency = new Map<string, number>();
  for (const set of sets) for (const token of set) frequency.set(token, (frequency.get(token) ?? 0) + 1);
  const tokens = [...frequency.keys()].sort(
    (a, b) => frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0),
  );
  return new Map(tokens.map((token, rank) => [token, rank]));
}

// The epsilons keep float noise in t·|X| from raising α, which would shorten a prefix below the proof.
function jaccardBound(size: number, threshold: number): number {
  return Math.ceil(threshold * size - 1e-9);
}

function overlapBound(size: number): number {
  return Math.ceil(DEDUP_THRESHOLDS.evidenceOverlap * size - 1e-9);
}

function prefix(set: ReadonlySet<string>, rank: ReadonlyMap<string, number>, required: number): string[] {
  if (set.size === 0) return [];
  const sorted = [...set].sort((a, b) => rank.get(a)! - rank.get(b)!);
  return sorted.slice(0, sorted.length - required + 1);
}
