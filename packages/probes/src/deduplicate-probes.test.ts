import { createSeededRandom } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import {
  DEDUP_THRESHOLDS,
  deduplicateProbes,
  deduplicateProbesAllPairs,
  isDuplicatePair,
  probeTokens,
} from './deduplicate-probes';
import { makeSyntheticProbes } from './testing';

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const probe = (question: string[], answer: string[], evidence: string[]) => ({
  question: question.join(' '),
  answer: answer.join(' '),
  evidence: [{ text: evidence.join(' ') }],
});
const dup = (a: ReturnType<typeof probe>, b: ReturnType<typeof probe>) =>
  isDuplicatePair(probeTokens(a), probeTokens(b));

describe('isDuplicatePair thresholds', () => {
  const answer = words('a', 10);
  const answerAt = (shared: number) => [...answer.slice(0, shared), ...words('b', 10 - shared)];
  const evidence = words('e', 10);
  const evidenceAt = (shared: number) => [...evidence.slice(0, shared), ...words('f', 10 - shared)];
  const question = words('q', 20);
  const questionAt = (shared: number) => [...question.slice(0, shared), ...words('r', 20 - shared)];

  it('evidence overlap branch: 0.80 duplicates, 0.70 does not (answer Jaccard 1)', () => {
    const base = probe(words('x', 3), answer, evidence);
    expect(dup(base, probe(words('y', 3), answer, evidenceAt(8)))).toBe(true);
    expect(dup(base, probe(words('y', 3), answer, evidenceAt(7)))).toBe(false);
  });

  it('evidence overlap is the overlap coefficient: a quote inside a longer quote counts fully', () => {
    const base = probe(words('x', 3), answer, evidence);
    expect(dup(base, probe(words('y', 3), answer, [...evidence.slice(0, 4)]))).toBe(true);
  });

  it('answer similarity 0.70 exactly passes and just below fails, in both branches', () => {
    // a ⊂ b with 7 of 10 tokens: Jaccard exactly 7/10; `below` shares 7 and adds one: 7/11.
    const a = words('a', 7);
    const b = words('a', 10); // Jaccard 7/10 = 0.7
    const below = words('a', 11).slice(0, 7).concat(['z']); // vs b: shared 7, union 11 → 0.636
    expect(DEDUP_THRESHOLDS.answerSimilarity).toBe(0.7);
    expect(dup(probe(words('x', 3), a, evidence), probe(words('y', 3), b, evidence))).toBe(true);
    expect(dup(probe(question, a, words('m', 5)), probe(question, b, words('n', 5)))).toBe(true);
    expect(dup(probe(words('x', 3), below, evidence), probe(words('y', 3), b, evidence))).toBe(false);
    expect(dup(probe(question, below, words('m', 5)), probe(question, b, words('n', 5)))).toBe(false);
  });

  it('question similarity branch: 0.90 duplicates, just below does not (disjoint evidence)', () => {
    // 19 shared of 20 tokens each: Jaccard 19/21 = 0.905; 18 shared: 18/22 = 0.818.
    const other = words('m', 5);
    const base = probe(question, answer, evidence);
    expect(dup(base, probe(questionAt(19), answer, other))).toBe(true);
    expect(dup(base, probe(questionAt(18), answer, other))).toBe(false);
    // exactly 0.90: 9 of 10 tokens subset: A ⊂ B with |A| = 9, |B| = 10.
    const q10 = words('q', 10);
    expect(dup(probe(q10.slice(0, 9), answer, evidence), probe(q10, answer, other))).toBe(true);
  });

  it('a high question or evidence similarity never suffices with a different answer', () => {
    const base = probe(question, answer, evidence);
    expect(dup(base, probe(question, answerAt(5), evidence))).toBe(false);
  });
});

describe('deduplicateProbes', () => {
  it('keeps the first of each duplicate group and names what a dropped probe duplicates', () => {
    const a = probe(
      ['what', 'is', 'the', 'rate'],
      ['42', 'percent'],
      ['the', 'rate', 'was', '42', 'percent'],
    );
    const b = probe(
      ['what', 'rate', 'was', 'seen'],
      ['42', 'percent'],
      ['the', 'rate', 'was', '42', 'percent', 'in', '2020'],
    );
    const c = probe(['who', 'built', 'it'], ['acme'], ['acme', 'built', 'it']);
    const result = deduplicateProbes([a, c, b]);
    expect(result.kept).toEqual([a, c]);
    expect(result.dropped).toEqual([{ index: 2, duplicateOf: 0 }]);
  });

  it('compares only with kept probes (greedy chain: a~b, b~c, not a~c keeps a and c)', () => {
    const ev = (n: number) => words('e', 10).slice(0, n);
    // answers a = a0..a6 and c = a3..a9 both lie in b = a0..a9 (Jaccard 0.7 each); a vs c is 4/10.
    const a = probe(['q1'], words('a', 7), ev(10));
    const b = probe(['q2'], words('a', 10), ev(10));
    const c = probe(['q3'], words('a', 10).slice(3), ev(10));
    expect(dup(a, b)).toBe(true);
    expect(dup(b, c)).toBe(true);
    expect(dup(a, c)).toBe(false);
    const result = deduplicateProbes([a, b, c]);
    expect(result.kept).toEqual([a, c]);
    expect(deduplicateProbesAllPairs([a, b, c])).toEqual(result);
  });

  it('gives exactly the all-pairs result on random banks with many near-duplicates', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const bank = makeSyntheticProbes(1500, seed, 300);
      const blocked = deduplicateProbes(bank);
      const reference = deduplicateProbesAllPairs(bank);
      expect(blocked.dropped.length).toBeGreaterThan(100);
      expect(blocked).toEqual(reference);
    }
  });

  it('gives the all-pairs result on tiny vocabularies where answers collide a lot', () => {
    const bank = makeSyntheticProbes(600, 9, 12);
    expect(deduplicateProbes(bank)).toEqual(deduplicateProbesAllPairs(bank));
  });

  it('gives the all-pairs result when duplicates share only evidence (sub-quotes of either size)', () => {
    const random = createSeededRandom(11);
    const word = () => `v${Math.floor(random() * 400)}`;
    const bank: Array<{ question: string; answer: string; evidence: Array<{ text: string }> }> = [];
    for (let i = 0; i < 1200; i += 1) {
      const base = bank.length > 0 && random() < 0.5 ? bank[Math.floor(random() * bank.length)]! : undefined;
      const baseWords = base
        ? base.evidence[0]!.text.split(' ')
        : Array.from({ length: 10 + Math.floor(random() * 20) }, word);
      const from = base ? Math.floor(random() * baseWords.length * 0.3) : 0;
      const to = base ? baseWords.length - Math.floor(random() * baseWords.length * 0.3) : baseWords.length;
      const extra = base && random() < 0.5 ? Array.from({ length: Math.floor(random() * 15) }, word) : [];
      bank.push({
        question: Array.from({ length: 8 }, word).join(' '),
        answer:
          base && random() < 0.8
            ? base.answer
            : Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(' '),
        evidence: [{ text: [...baseWords.slice(from, to), ...extra].join(' ') }],
      });
    }
    const blocked = deduplicateProbes(bank);
    expect(blocked.dropped.length).toBeGreaterThan(100);
    expect(blocked).toEqual(deduplicateProbesAllPairs(bank));
  });

  it('gives the all-pairs result when duplicates share only the question (evidence disjoint)', () => {
    const random = createSeededRandom(5);
    const word = () => `u${Math.floor(random() * 300)}`;
    const bank: Array<{ question: string; answer: string; evidence: Array<{ text: string }> }> = [];
    for (let i = 0; i < 1200; i += 1) {
      const base = bank.length > 0 && random() < 0.5 ? bank[Math.floor(random() * bank.length)]! : undefined;
      const question = base
        ? base.question.split(' ').map((w) => (random() < 0.04 ? word() : w))
        : Array.from({ length: 10 + Math.floor(random() * 20) }, word);
      if (base && random() < 0.3) question.push(word());
      bank.push({
        question: question.join(' '),
        answer:
          base && random() < 0.8
            ? base.answer
            : Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(' '),
        evidence: [{ text: `e${i}a e${i}b e${i}c` }],
      });
    }
    const blocked = deduplicateProbes(bank);
    expect(blocked.dropped.length).toBeGreaterThan(100);
    expect(blocked).toEqual(deduplicateProbesAllPairs(bank));
  });
});
