import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@xsb/core/testing';
import type { RubricEvaluation, RubricVerdict } from '@xsb/rubric';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metaAgreementSchema } from '../schemas/meta-agreement';
import { computeAgreement } from './compute-agreement';
import { flipRates } from './flip-rate';
import { readVerdictSet } from './read-verdict-set';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-meta-agreement-'));
});
afterEach(async () => cleanup());

function evaluation(judge: string, verdicts: RubricVerdict[]): RubricEvaluation {
  return {
    instance_id: 'i',
    category: 'talk',
    deck_path: 'slides.pptx',
    judge,
    parser: 'strict',
    slide_count_on: 'judged',
    input_hash: 'h',
    slide_count: 3,
    judged_slide_count: 3,
    truncated: false,
    items: verdicts.map((verdict, index) => ({
      key: `${index < 5 ? 1 : 2}.${(index % 5) + 1}`,
      section: 'material_independent',
      class_id: index < 5 ? '1' : '2',
      dimension: index < 5 ? 'fundamentals' : 'design',
      kind: 'llm',
      verdict,
      raw_answer: verdict,
      explanation: null,
      cited_slides: [],
      attempts: 1,
    })),
    layout_checks: [],
    usage: { calls: 10, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  };
}

async function write(file: string, content: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

// The table of stats.test.ts: A = y y y y y y n n n n, B = y y y y n n y n n n →
// agreement 0.7, kappa 0.4, alpha 14/33; the disagreements are items 5, 6 (design 2.1 is item 6) and 7.
const A: RubricVerdict[] = ['yes', 'yes', 'yes', 'yes', 'yes', 'yes', 'no', 'no', 'no', 'no'];
const B: RubricVerdict[] = ['yes', 'yes', 'yes', 'yes', 'no', 'no', 'yes', 'no', 'no', 'no'];

describe('computeAgreement', () => {
  it('matches the hand-computed table on two rubric evaluations of the same deck by different judges', async () => {
    const a = await write(
      join(dir, 'a', 'case1', 'slides.pptx.xsb_rubric_lexical.json'),
      JSON.stringify(evaluation('lexical', A)),
    );
    await write(
      join(dir, 'b', 'case1', 'slides.pptx.xsb_rubric_openai_gpt-x.json'),
      JSON.stringify(evaluation('openai:gpt-x', B)),
    );
    const result = computeAgreement(
      await readVerdictSet(join(dir, 'a')),
      await readVerdictSet(join(dir, 'b')),
      { resamples: 300 },
    );
    expect(() => metaAgreementSchema.parse(result)).not.toThrow();
    expect(a).toContain('lexical');
    expect(result.judge_a).toEqual(['lexical']);
    expect(result.judge_b).toEqual(['openai:gpt-x']);
    expect(result.matched_items).toBe(10);
    expect(result.overall.agreement.value).toBeCloseTo(0.7, 12);
    expect(result.overall.kappa.value).toBeCloseTo(0.4, 12);
    expect(result.overall.alpha.value).toBeCloseTo(14 / 33, 12);
    expect(result.overall.kappa.ci_low!).toBeLessThan(0.4);
    expect(result.overall.kappa.ci_high!).toBeGreaterThan(0.4);
    expect(result.disagreements.map((item) => item.item)).toEqual([
      'case1/slides.pptx#material_independent/1.5',
      'case1/slides.pptx#material_independent/2.1',
      'case1/slides.pptx#material_independent/2.2',
    ]);
    // fundamentals: items 1-5 → A y y y y y, B y y y y n: agreement 0.8; B's labels vary but A's do not → kappa 0.
    const fundamentals = result.classes.find((row) => row.class === 'rubric.fundamentals')!;
    expect(fundamentals.agreement.value).toBeCloseTo(0.8, 12);
    expect(fundamentals.kappa.value).toBeCloseTo(0, 12);
  });

  it('leaves error and not-judged verdicts out instead of counting them as "no"', async () => {
    const withGaps = [...A];
    withGaps[0] = 'error';
    withGaps[1] = 'not_judged';
    await write(join(dir, 'x.json'), JSON.stringify(evaluation('j1', withGaps)));
    await write(join(dir, 'y.json'), JSON.stringify(evaluation('j2', B)));
    const result = computeAgreement(
      await readVerdictSet(join(dir, 'x.json')),
      await readVerdictSet(join(dir, 'y.json')),
      { resamples: 100 },
    );
    expect(result.matched_items).toBe(8);
    expect(result.only_in_b).toBe(2);
  });

  it('matches probe coverage by probe id and claim labels by claim text across evaluation trees', async () => {
    const scores = (covered: boolean[]) =>
      covered
        .map((value, index) =>
          JSON.stringify({
            probe_id: `p${index}`,
            covered: value,
            answer: '',
            cited_evidence: '',
            metadata: { judge: 'lexical' },
          }),
        )
        .join('\n');
    const correctness = (claims: Array<[string, string]>) =>
      JSON.stringify({
        correctness: 0.5,
        formula: 'f',
        judge: 'lexical',
        deck_sha256: 'a'.repeat(64),
        source_sha256: 'a'.repeat(64),
        cache_key: 'a'.repeat(64),
        settings: {},
        claim_count: claims.length,
        supported_count: 0,
        contradicted_count: 0,
        unsupported_count: 0,
        claims: claims.map(([text, label], index) => ({
          claim_id: `c${index}`,
          slide_index: 1,
          text,
          label,
          rationale: '',
          snippets: [],
        })),
      });
    const job = 'sys/audience_agnostic/learners/case';
    await write(join(dir, 'a', job, 'probe_scores.jsonl'), scores([true, true, false, false]));
    await write(join(dir, 'b', job, 'probe_scores.jsonl'), scores([true, false, false, false]));
    await write(
      join(dir, 'a', job, 'correctness.json'),
      correctness([
        ['Raft elects a leader.', 'supported'],
        ['Only in A.', 'supported'],
      ]),
    );
    await write(
      join(dir, 'b', job, 'correctness.json'),
      correctness([
        ['raft  elects a LEADER.', 'unsupported'],
        ['Only in B.', 'supported'],
      ]),
    );
    const result = computeAgreement(
      await readVerdictSet(join(dir, 'a')),
      await readVerdictSet(join(dir, 'b')),
      { resamples: 100 },
    );
    expect(result.classes.map((row) => [row.class, row.n])).toEqual([
      ['claim_label', 1],
      ['probe_coverage', 4],
    ]);
    expect(result.only_in_a).toBe(1);
    expect(result.disagreements).toEqual([
      {
        item: `${job}/correctness.json#claim:raft elects a leader.`,
        class: 'claim_label',
        a: 'supported',
        b: 'unsupported',
      },
      { item: `${job}/probe_scores.jsonl#p1`, class: 'probe_coverage', a: 'covered', b: 'not_covered' },
    ]);
  });

  it('reads PresentBench result YAML', async () => {
    const file = join(fixtures, 'rubric', 'presentbench-layout', 'result-example.yaml');
    const result = computeAgreement(await readVerdictSet(file), await readVerdictSet(file), {
      resamples: 50,
    });
    expect(result.matched_items).toBeGreaterThan(0);
    expect(result.overall.agreement.value).toBe(1);
  });

  it('names what is wrong with its inputs', async () => {
    await expect(readVerdictSet(join(dir, 'nothing'))).rejects.toThrow(/does not exist/);
    await mkdir(join(dir, 'empty'));
    await expect(readVerdictSet(join(dir, 'empty'))).rejects.toThrow(/holds no verdict file/);
    await write(join(dir, 'bad', 'probe_scores.jsonl'), '{"probe_id": "p1"}\n');
    await expect(readVerdictSet(join(dir, 'bad'))).rejects.toThrow(/probe_scores\.jsonl:1: field "covered"/);
  });
});

describe('flipRates', () => {
  it('counts items whose repeats disagree, per class', async () => {
    // Three repeats over five rubric items of two classes:
    //   fundamentals 1.1 y y y   1.2 y n y   1.3 n n n      → 1 of 3 flipped
    //   design       2.1 y y n   2.2 n n n                   → 1 of 2 flipped
    // Pairwise agreement over the 5 items: pair (1,2) agrees on 4 (not 1.2), (1,3) on 4 (not 2.1),
    // (2,3) on 3 (not 1.2, 2.1): 11 of 15.
    const repeats: RubricVerdict[][] = [
      ['yes', 'yes', 'no', 'no', 'no', 'yes', 'no', 'no', 'no', 'no'],
      ['yes', 'no', 'no', 'no', 'no', 'yes', 'no', 'no', 'no', 'no'],
      ['yes', 'yes', 'no', 'no', 'no', 'no', 'no', 'no', 'no', 'no'],
    ].map((row) => row as RubricVerdict[]);
    const sets = [];
    for (const [index, verdicts] of repeats.entries()) {
      const file = await write(join(dir, `r${index}.json`), JSON.stringify(evaluation('j', verdicts)));
      const set = await readVerdictSet(file);
      // Keep five items: 1.1-1.3 and 2.1-2.2.
      for (const key of [...set.items.keys()]) if (!/\/(1\.[123]|2\.[12])$/.test(key)) set.items.delete(key);
      sets.push(set);
    }
    const rates = flipRates(sets);
    expect(rates.repeats).toBe(3);
    expect(rates.classes.map((row) => [row.class, row.n, row.flipped])).toEqual([
      ['rubric.design', 2, 1],
      ['rubric.fundamentals', 3, 1],
    ]);
    expect(rates.overall.flip_rate).toBeCloseTo(2 / 5, 12);
    expect(rates.overall.mean_pairwise_agreement).toBeCloseTo(11 / 15, 12);
    expect(flipRates([sets[0]!]).overall.flipped).toBe(0);
  });
});
