import { join } from 'node:path';
import type { Deck } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { createLlmClient } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_INSTRUCTION } from './checklist-item-judge';
import { cachedInputShare, evaluateDeck } from './evaluate-deck';
import { loadPresentBenchCase } from './load-presentbench-case';
import { readMaterials } from './read-materials';
import { loadRubricInstance, type RubricInstance } from './rubric-instance';
import { scoreEvaluation } from './score-report';
import { writeLayoutFixtureDecks, writeLectureDeck } from './write-layout-fixture-decks';

const DATA = join(__dirname, '../../../fixtures/rubric/presentbench-layout/data');
const CASE = join(DATA, 'education/Computer_science_lectures/ch1_bits');
const APPENDIX = join(__dirname, '../../../fixtures/rubric/appendix-cs-overview-ch1/instance.yaml');

/** Scripted judge: the answer depends only on the item, which is the only part unique to a call. */
function scriptedAnswer(text: string): string {
  const retried = text.includes(RETRY_INSTRUCTION);
  if (text.includes('**Logical Flow**'))
    return 'Slide 3 jumps back to gates, which breaks the flow. \\boxed{no}';
  if (text.includes('**Spelling Accuracy**')) return 'No misspellings found.\n\n\\boxed{\\text{Yes}}';
  if (text.includes('**Consistency in Design**')) return '\\boxed{yes}';
  if (text.includes('**Bullet Point Limitation**'))
    return retried ? 'Sorry: \\boxed{yes}' : 'Every slide looks fine to me.';
  if (text.includes('**Font Size and Legibility**')) return 'The fonts seem mostly fine.';
  if (text.includes('**Foundational Definitions**') || text.includes('**Boolean Operations**'))
    return '\\boxed{yes}';
  if (text.includes('**Gate Logic**')) return 'Slides 2 and 4 say XOR equals OR. \\boxed{no}';
  if (text.includes('**Hexadecimal**')) return '\\boxed{yes}';
  const slide = /content on Slide (\d+) present/.exec(text);
  if (slide)
    return slide[1] === '3' ? 'Slide 3 adds a number not in the material. \\boxed{no}' : '\\boxed{yes}';
  return 'unexpected item';
}

let server: FakeLlmServer;
let instance: RubricInstance;
let cleanDeck: Deck;
let defectDeck: Deck;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  server = await startFakeLlmServer({ handler: (request) => ({ text: scriptedAnswer(request.text) }) });
  instance = await loadPresentBenchCase(DATA, CASE);
  const temp = await makeTempDir('xsb-rubric-eval-');
  cleanup = temp.cleanup;
  const paths = await writeLayoutFixtureDecks(temp.dir);
  cleanDeck = await readDeck(paths.clean);
  defectDeck = await readDeck(paths.defects);
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

describe('evaluateDeck with scripted verdicts through the fake server (real SDK clients)', () => {
  it.each(['anthropic:claude-rubric-test', 'openai:gpt-rubric-test'])(
    '%s: scores equal the hand computation',
    async (judge) => {
      const client = createLlmClient(judge, { env: fakeProviderEnv(server), noCache: true });
      const evaluation = await evaluateDeck({
        instance,
        deck: cleanDeck,
        materials: await readMaterials(instance.materials),
        client,
        judgeId: judge,
        maxAttempts: 3,
      });
      const verdicts = Object.fromEntries(
        evaluation.items.map((item) => [`${item.section}:${item.key}`, item.verdict]),
      );
      expect(verdicts).toEqual({
        'material_independent:1.1': 'yes',
        'material_independent:1.2': 'no',
        'material_independent:1.3': 'yes',
        'material_independent:2.1': 'yes',
        'material_independent:2.2': 'yes',
        'material_independent:2.3': 'error',
        'material_dependent:1.1': 'yes',
        'material_dependent:1.2': 'yes',
        'material_dependent:2.1': 'no',
        'material_dependent:2.2': 'yes',
        'material_dependent:3.1': 'yes',
        'material_dependent:3.2': 'yes',
        'material_dependent:3.3': 'no',
        'material_dependent:3.4': 'yes',
      });
      const item = (key: string, section = 'material_independent') =>
        evaluation.items.find((entry) => entry.key === key && entry.section === section);
      expect(item('1.1')).toMatchObject({ kind: 'check', check_id: 'slide_count', attempts: 0 });
      expect(item('1.2')?.cited_slides).toEqual([3]);
      expect(item('1.3')?.raw_answer).toBe('\\text{Yes}');
      expect(item('2.2')?.attempts).toBe(2);
      expect(item('2.2')?.layout_check).toMatchObject({ id: 'bullets_per_slide', passed: true });
      expect(item('2.3')).toMatchObject({
        attempts: 3,
        raw_answer: null,
        explanation: 'The fonts seem mostly fine.',
      });
      expect(item('2.1', 'material_dependent')?.cited_slides).toEqual([2, 4]);
      // 4-slide deck: the per-slide list (5 entries) is cut to 4.
      expect(evaluation).toMatchObject({ slide_count: 4, judged_slide_count: 4, truncated: false });
      expect(evaluation.usage.calls).toBe(2 + 1 + 2 + 3 + 2 + 2 + 4);

      const scores = scoreEvaluation(evaluation, { weights: instance.weights });
      // Paper: fundamentals 2/3, design 2/2 (the error is reported, not scored), completeness 1,
      // correctness 1/2, fidelity 3/4; total = mean × 100.
      expect(scores.paper.dimensions.design).toMatchObject({ yes: 2, no: 0, error: 1, score: 1 });
      expect(scores.paper.total_percent).toBeCloseTo(((2 / 3 + 1 + 1 + 1 / 2 + 3 / 4) / 5) * 100, 10);
      expect(scores.paper.error_count).toBe(1);
      // PresentBench weighted (scoring.py, current rule: the unanswered item stays in the denominator):
      // 10·2/3 + 30·2/3 + 20·2/2 + 25·1/2 + 15·3/4 over 100.
      expect(scores.presentbench.total_percent).toBeCloseTo((10 * 2) / 3 + 20 + 20 + 12.5 + 11.25, 10);
      expect(scores.presentbench.classes.material_independent['2']).toMatchObject({
        yes_count: 2,
        valid_count: 3,
      });
      const strict = scoreEvaluation(evaluation, { weights: instance.weights, errorPolicy: 'as-no' });
      expect(strict.paper.total_percent).toBeCloseTo(((2 / 3 + 2 / 3 + 1 + 1 / 2 + 3 / 4) / 5) * 100, 10);
    },
  );

  it('sends every item of a tier with the same prefix, the item last', async () => {
    const client = createLlmClient('anthropic:claude-rubric-prefix', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const before = server.requests.length;
    await evaluateDeck({
      instance,
      deck: cleanDeck,
      materials: await readMaterials(instance.materials),
      client,
      judgeId: 'x',
    });
    const bodies = server.requests
      .slice(before)
      .map(
        (request) =>
          request.body as { messages: Array<{ content: Array<{ text: string; cache_control?: unknown }> }> },
      );
    const firstTurns = bodies.map((body) => body.messages[0]?.content ?? []);
    const independent = firstTurns.filter((parts) => parts.length === 3);
    const dependent = firstTurns.filter((parts) => parts.length === 5); // deck, material.md, material_1.md, prefix, item
    expect(independent.length).toBe(2 + 1 + 2 + 3); // retries (2.2 once, 2.3 twice) repeat the first turn
    expect(dependent.length).toBe(8);
    expect(
      new Set(
        independent.map((parts) =>
          parts
            .slice(0, 2)
            .map((p) => p.text)
            .join('|'),
        ),
      ).size,
    ).toBe(1);
    expect(
      new Set(
        dependent.map((parts) =>
          parts
            .slice(0, 4)
            .map((p) => p.text)
            .join('|'),
        ),
      ).size,
    ).toBe(1);
    expect(dependent[0]?.[3]?.cache_control).toEqual({ type: 'ephemeral' });
    expect(dependent[0]?.[1]?.text).toMatch(/^File 2: material\.md/);
  });
});

describe('evaluateDeck when the provider fails an item', () => {
  it('records that item as an error with the provider message and judges the rest', async () => {
    const faulty = await startFakeLlmServer({
      handler: (request) =>
        request.text.includes('**Gate Logic**')
          ? { fault: { kind: 'status', status: 400, message: 'prompt rejected by policy' } }
          : { text: '\\boxed{yes}' },
    });
    try {
      const client = createLlmClient('openai:gpt-rubric-fault', {
        env: fakeProviderEnv(faulty),
        noCache: true,
      });
      const evaluation = await evaluateDeck({
        instance,
        deck: cleanDeck,
        materials: [],
        client,
        judgeId: 'x',
      });
      const gate = evaluation.items.find(
        (item) => item.section === 'material_dependent' && item.key === '2.1',
      );
      expect(gate).toMatchObject({ verdict: 'error', attempts: 1 });
      expect(gate?.explanation).toMatch(/prompt rejected by policy/);
      expect(evaluation.items.filter((item) => item.verdict === 'error')).toHaveLength(1);
    } finally {
      await faulty.close();
    }
  });
});

describe('evaluateDeck with the PDF attached', () => {
  it('sends the PDF first as a document in every call, and refuses to attach it untruncated', async () => {
    const client = createLlmClient('anthropic:claude-rubric-pdf', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const pdf = new TextEncoder().encode('%PDF-1.4 fixture bytes');
    const before = server.requests.length;
    await evaluateDeck({
      instance,
      deck: cleanDeck,
      deckPdf: pdf,
      materials: [],
      client,
      judgeId: 'x',
      maxAttempts: 1,
    });
    const firstParts = server.requests
      .slice(before)
      .map(
        (request) =>
          (request.body as { messages: Array<{ content: Array<{ type: string }> }> }).messages[0]?.content[0]
            ?.type,
      );
    expect(firstParts.length).toBeGreaterThan(0);
    expect(new Set(firstParts)).toEqual(new Set(['document']));
    await expect(
      evaluateDeck({ instance, deck: defectDeck, deckPdf: pdf, materials: [], client, judgeId: 'x' }),
    ).rejects.toThrow(/7 pages, more than the instruction's 5/);
  });
});

describe('evaluateDeck offline and with truncation', () => {
  it('decides check items without a model and leaves LLM items not judged (never "no")', async () => {
    const evaluation = await evaluateDeck({
      instance,
      deck: cleanDeck,
      materials: [],
      client: null,
      judgeId: 'lexical',
    });
    expect(evaluation.items.filter((item) => item.verdict === 'not_judged')).toHaveLength(
      evaluation.items.length - 1,
    );
    expect(evaluation.items[0]).toMatchObject({ key: '1.1', verdict: 'yes' });
    const scores = scoreEvaluation(evaluation, { weights: instance.weights });
    expect(scores.paper.total_percent).toBeNull();
    expect(scores.paper.dimensions.fundamentals.score).toBe(1);
    expect(scores.paper.dimensions.design.score).toBeNull();
    expect(scores.paper.not_judged_count).toBe(13);
    // scoring.py on the partial export would report 10·1/1 over 100 = 10%: unjudged classes as zeros.
    expect(scores.presentbench_score_tree.total.weighted_arithmetic_mean_percent).toBe(10);
    expect(scores.presentbench).toMatchObject({
      not_judged_count: 13,
      total_percent: null,
      material_independent_percent: null,
      material_dependent_percent: null,
    });
    expect(scores.presentbench.classes.material_independent['1']).toMatchObject({
      score_percent: null,
      yes_count: 1,
      valid_count: 1,
    });
    expect(Object.values(scores.presentbench.leave_one_out_percent).every((value) => value === null)).toBe(
      true,
    );
    expect(evaluation.usage.calls).toBe(0);
  });

  it('cuts a deck past the maximum before judging, and the fidelity list with it', async () => {
    const client = createLlmClient('anthropic:claude-rubric-trunc', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const before = server.requests.length;
    const evaluation = await evaluateDeck({
      instance,
      deck: defectDeck,
      materials: [],
      client,
      judgeId: 'x',
      standIn: 'replace',
    });
    expect(evaluation).toMatchObject({ slide_count: 7, judged_slide_count: 5, truncated: true });
    expect(evaluation.items.filter((item) => item.dimension === 'fidelity')).toHaveLength(5);
    expect(evaluation.items[0]).toMatchObject({
      verdict: 'no',
      explanation: expect.stringMatching(/7 slides, too many/),
    });
    const sent = server.requests.slice(before).map((request) => request.text);
    expect(sent.every((text) => text.includes('--- Slide 5 ---') && !text.includes('--- Slide 6 ---'))).toBe(
      true,
    );
    // replace mode: the bullet and font items are decided by geometry (slides 2 and 3 are defective)
    const design = evaluation.items.filter((item) => item.dimension === 'design');
    expect(design.map((item) => [item.verdict, item.decided_by_check ?? false])).toEqual([
      ['yes', false],
      ['no', true],
      ['no', true],
    ]);
    expect(design[1]?.cited_slides).toEqual([2]);
    const asPresentBench = await evaluateDeck({
      instance,
      deck: defectDeck,
      materials: [],
      client: null,
      judgeId: 'lexical',
      slideCountOn: 'judged',
    });
    expect(asPresentBench.items[0]).toMatchObject({
      verdict: 'yes',
      explanation: expect.stringMatching(/5 slides, within 3-5/),
    });
  });
});

describe('prompt-prefix caching for one fixture deck', () => {
  it('serves at least 85% of input tokens from the cached prefix (appendix instance, 25-slide deck)', async () => {
    const appendix = await loadRubricInstance(APPENDIX);
    const temp = await makeTempDir('xsb-rubric-cache-');
    try {
      const deck = await readDeck(await writeLectureDeck(temp.dir, 25));
      for (const judge of ['anthropic:claude-rubric-cache', 'openai:gpt-rubric-cache']) {
        const client = createLlmClient(judge, { env: fakeProviderEnv(server), noCache: true });
        const evaluation = await evaluateDeck({
          instance: appendix,
          deck,
          materials: await readMaterials(appendix.materials),
          client,
          judgeId: judge,
          maxAttempts: 1,
        });
        const share = cachedInputShare(evaluation.usage) as number;
        console.log(
          `[rubric cache] ${judge}: ${evaluation.usage.calls} calls, input ${evaluation.usage.input_tokens} + cache read ${evaluation.usage.cache_read_tokens} + cache write ${evaluation.usage.cache_write_tokens} tokens, served from cache ${(share * 100).toFixed(1)}%`,
        );
        expect(evaluation.usage.calls).toBe(12 + 17 + 13 + 7 + 25);
        expect(share).toBeGreaterThanOrEqual(0.85);
      }
    } finally {
      await temp.cleanup();
    }
  });
});
