import { join } from 'node:path';
import type { Deck } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { readDeck } from '@xsb/decks';
import { createLlmClient, judgeFromClient, offlineJudge } from '@xsb/llm';
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

/** Calls seen per item (the item text is the only part unique to a call). */
const callsPerItem = new Map<string, number>();

/** The item a request asks about: its last text part, after the tier's prefix. */
function itemOf(text: string): string {
  const marker = text.lastIndexOf('---\n');
  return marker >= 0 ? text.slice(marker) : text;
}

/**
 * Scripted judge with the messy answers real models give: a quoted template box, `\text{Yes}`, two
 * boxes that disagree, `maybe`, an empty answer, answers without any box.
 */
function scriptedAnswer(text: string): string {
  const item = itemOf(text);
  const call = (callsPerItem.get(item) ?? 0) + 1;
  callsPerItem.set(item, call);
  const retried = text.includes(RETRY_INSTRUCTION);
  if (item.includes('**Logical Flow**'))
    return 'Slide 3 jumps back to gates, which breaks the flow. \\boxed{no}';
  if (item.includes('**Spelling Accuracy**')) return 'No misspellings found.\n\n\\boxed{\\text{Yes}}';
  if (item.includes('**Consistency in Design**'))
    return 'I must answer with \\boxed{...}. Fonts and colours match on every slide: \\boxed{yes}';
  if (item.includes('**Bullet Point Limitation**'))
    return call >= 3 || retried ? 'Sorry: \\boxed{yes}' : 'Every slide looks fine to me.';
  if (item.includes('**Font Size and Legibility**')) return 'The fonts seem mostly fine.';
  if (item.includes('**Foundational Definitions**')) return 'It is defined, more or less. \\boxed{maybe}';
  if (item.includes('**Boolean Operations**')) return call === 1 ? '' : '\\boxed{yes}';
  if (item.includes('**Gate Logic**')) return 'Slides 2 and 4 say XOR equals OR. \\boxed{no}';
  if (item.includes('**Hexadecimal**'))
    return 'At first glance \\boxed{yes}; on reflection slide 4 errs: \\boxed{no}';
  const slide = /content on Slide (\d+) present/.exec(item);
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
    '%s: strict (PresentBench main) readings and scores equal the hand computation',
    async (judge) => {
      callsPerItem.clear();
      const client = createLlmClient(judge, { env: fakeProviderEnv(server), noCache: true });
      const evaluation = await evaluateDeck({
        instance,
        deck: cleanDeck,
        materials: await readMaterials(instance.materials),
        judge: judgeFromClient(judge, client),
      });
      expect(evaluation).toMatchObject({
        parser: 'strict',
        slide_count_on: 'judged',
        weights: instance.weights,
      });
      const read = Object.fromEntries(
        evaluation.items.map((item) => [
          `${item.section}:${item.key}`,
          [item.answer, item.verdict, item.attempts],
        ]),
      );
      expect(read).toEqual({
        'material_independent:1.1': ['yes', 'yes', 0],
        'material_independent:1.2': ['no', 'no', 1],
        'material_independent:1.3': ['Yes', 'yes', 1],
        'material_independent:2.1': ['yes', 'yes', 1],
        // no box twice: asked again with the same prompt, answered on the third call
        'material_independent:2.2': ['yes', 'yes', 3],
        // never a box: five calls (PresentBench's --retry default), then unanswered
        'material_independent:2.3': [null, 'error', 5],
        // a box that reads neither yes nor no ends the item: stored as given, scored as not-yes
        'material_dependent:1.1': ['maybe', 'other', 1],
        // an empty answer is asked again
        'material_dependent:1.2': ['yes', 'yes', 2],
        'material_dependent:2.1': ['no', 'no', 1],
        // the first box reads yes: it wins over the later "no"
        'material_dependent:2.2': ['yes', 'yes', 1],
        'material_dependent:3.1': ['yes', 'yes', 1],
        'material_dependent:3.2': ['yes', 'yes', 1],
        'material_dependent:3.3': ['no', 'no', 1],
        'material_dependent:3.4': ['yes', 'yes', 1],
      });
      const item = (key: string, section = 'material_independent') =>
        evaluation.items.find((entry) => entry.key === key && entry.section === section);
      expect(item('1.1')).toMatchObject({
        kind: 'check',
        check_id: 'slide_count',
        explanation: '[judged by code] The number of slides is 4, which is within the required range of 3-5.',
      });
      expect(item('1.2')?.cited_slides).toEqual([3]);
      expect(item('1.3')?.raw_answer).toBe('\\text{Yes');
      expect(item('2.2')?.layout_check).toMatchObject({ id: 'bullets_per_slide', passed: true });
      expect(item('2.3')).toMatchObject({
        raw_answer: null,
        explanation: 'The fonts seem mostly fine.',
        log: 'Failed to extract answer after 5 attempts for item 2.3',
      });
      expect(item('2.1', 'material_dependent')?.cited_slides).toEqual([2, 4]);
      // 4-slide deck: the per-slide list (5 entries) is cut to 4.
      expect(evaluation).toMatchObject({ slide_count: 4, judged_slide_count: 4, truncated: false });
      expect(evaluation.usage.calls).toBe(2 + 1 + 3 + 5 + 1 + 2 + 2 + 4);

      const scores = scoreEvaluation(evaluation, { weights: instance.weights });
      // Paper: fundamentals 2/3, design 2/2 (the unanswered item is reported, not scored),
      // completeness 1/2 ("maybe" is not satisfied), correctness 1/2, fidelity 3/4.
      expect(scores.paper.dimensions.design).toMatchObject({ yes: 2, no: 0, error: 1, score: 1 });
      expect(scores.paper.dimensions.completeness).toMatchObject({ yes: 1, other: 1, score: 0.5 });
      expect(scores.paper.total_percent).toBeCloseTo(((2 / 3 + 1 + 1 / 2 + 1 / 2 + 3 / 4) / 5) * 100, 10);
      expect(scores.paper.error_count).toBe(1);
      // PresentBench weighted: scoring.py cannot score a result with an unanswered item, so the
      // design class and every total depending on it read n/a; the other classes are exact.
      expect(scores.presentbench).toMatchObject({ unanswered_count: 1, total_percent: null });
      expect(scores.presentbench.unscoreable_reason).toMatch(/2\.3: answer is null/);
      expect(scores.presentbench_score_tree).toBeNull();
      expect(scores.presentbench.classes.material_independent['2']?.score_percent).toBeNull();
      expect(scores.presentbench.material_dependent_percent).toBeCloseTo(
        ((20 / 2 + 25 / 2 + (15 * 3) / 4) / 60) * 100,
        10,
      );
      // --errors as-no: the number scoring.py gives once the item is exported as "no".
      const strict = scoreEvaluation(evaluation, { weights: instance.weights, errorPolicy: 'as-no' });
      expect(strict.paper.total_percent).toBeCloseTo(((2 / 3 + 2 / 3 + 1 / 2 + 1 / 2 + 3 / 4) / 5) * 100, 10);
      expect(strict.presentbench.total_percent).toBeCloseTo(
        (10 * 2) / 3 + (30 * 2) / 3 + 10 + 12.5 + 11.25,
        10,
      );
      expect(strict.presentbench_score_tree?.total.weighted_arithmetic_mean_percent).toBeCloseTo(
        strict.presentbench.total_percent as number,
        12,
      );
    },
  );

  it('lenient (--parse lenient): last verdict box, markdown tolerated, corrective retries', async () => {
    callsPerItem.clear();
    const client = createLlmClient('openai:gpt-rubric-lenient', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const evaluation = await evaluateDeck({
      instance,
      deck: cleanDeck,
      materials: await readMaterials(instance.materials),
      judge: judgeFromClient('openai:gpt-rubric-lenient', client),
      parser: 'lenient',
    });
    expect(evaluation.parser).toBe('lenient');
    const read = (key: string, section = 'material_independent') => {
      const found = evaluation.items.find((entry) => entry.key === key && entry.section === section);
      return [found?.answer, found?.verdict, found?.attempts];
    };
    expect(read('1.3')).toEqual(['yes', 'yes', 1]);
    expect(read('2.2')).toEqual(['yes', 'yes', 2]); // one corrective turn
    expect(read('2.3')).toEqual([null, 'error', 3]);
    expect(read('1.1', 'material_dependent')).toEqual([null, 'error', 3]); // "maybe" is unreadable here
    expect(read('2.2', 'material_dependent')).toEqual(['no', 'no', 1]); // the last box wins
  });

  it('asks again with a fresh seed, so the response cache cannot replay an answer without a box', async () => {
    const temp = await makeTempDir('xsb-rubric-retry-cache-');
    let calls = 0;
    const boxless = await startFakeLlmServer({
      handler: () => {
        calls += 1;
        return { text: calls % 3 === 0 ? '\\boxed{yes}' : 'Looks fine.' };
      },
    });
    try {
      const client = createLlmClient('openai:gpt-rubric-seed', {
        env: fakeProviderEnv(boxless),
        cacheDir: temp.dir,
      });
      const evaluation = await evaluateDeck({
        instance,
        deck: cleanDeck,
        materials: [],
        judge: judgeFromClient('openai:gpt-rubric-seed', client),
        concurrency: 1,
      });
      const seeds = boxless.requests.slice(0, 3).map((request) => request.body.seed);
      expect(seeds).toEqual([undefined, 1, 2]);
      expect(
        evaluation.items.filter((item) => item.kind === 'llm').every((item) => item.verdict === 'yes'),
      ).toBe(true);
    } finally {
      await boxless.close();
      await temp.cleanup();
    }
  });

  it('sends every item of a tier with the same prefix, the item last', async () => {
    callsPerItem.clear();
    const client = createLlmClient('anthropic:claude-rubric-prefix', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const before = server.requests.length;
    await evaluateDeck({
      instance,
      deck: cleanDeck,
      materials: await readMaterials(instance.materials),
      judge: judgeFromClient('x', client),
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
    expect(independent.length).toBe(2 + 1 + 3 + 5); // strict retries resend the same turn (2.2 twice, 2.3 four times)
    expect(dependent.length).toBe(9); // 1.2 answered empty once
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
        judge: judgeFromClient('x', client),
      });
      const gate = evaluation.items.find(
        (item) => item.section === 'material_dependent' && item.key === '2.1',
      );
      expect(gate).toMatchObject({ verdict: 'error', attempts: 1, answer: null });
      expect(gate?.log).toMatch(/^Unexpected error on attempt 1\/5: .*prompt rejected by policy/);
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
      judge: judgeFromClient('x', client),
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
      evaluateDeck({
        instance,
        deck: defectDeck,
        deckPdf: pdf,
        materials: [],
        judge: judgeFromClient('x', client),
      }),
    ).rejects.toThrow(/7 pages, more than the instruction's 5/);
  });
});

describe('evaluateDeck offline and with truncation', () => {
  it('decides check items without a model and leaves LLM items not judged (never "no")', async () => {
    const evaluation = await evaluateDeck({
      instance,
      deck: cleanDeck,
      materials: [],
      judge: offlineJudge,
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
    // unjudged items are exported unanswered: scoring.py cannot score the file, nothing looks answered
    expect(scores.presentbench_score_tree).toBeNull();
    expect(scores.presentbench).toMatchObject({
      not_judged_count: 13,
      total_percent: null,
      material_independent_percent: null,
      material_dependent_percent: null,
    });
    expect(scores.presentbench.classes.material_independent['1']).toMatchObject({
      score_percent: null,
      yes_count: 1,
      valid_count: 3, // the two unjudged items are exported unanswered, in the denominator
    });
    expect(Object.values(scores.presentbench.leave_one_out_percent).every((value) => value === null)).toBe(
      true,
    );
    expect(evaluation.usage.calls).toBe(0);
  });

  it('cuts a deck past the maximum before judging; counts its slides and cuts the per-slide list as judge.py', async () => {
    callsPerItem.clear();
    const client = createLlmClient('anthropic:claude-rubric-trunc', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    // a per-slide list longer than the maximum: judge.py cuts it to the ORIGINAL deck's page count
    const perSlide = Array.from(
      { length: 9 },
      (_, k) => `\nIs all content on Slide ${k + 1} present in the provided background materials?\n`,
    );
    const longList = { ...instance, checklists: { ...instance.checklists, fidelity: perSlide } };
    const before = server.requests.length;
    const evaluation = await evaluateDeck({
      instance: longList,
      deck: defectDeck,
      materials: [],
      judge: judgeFromClient('x', client),
      standIn: 'replace',
    });
    expect(evaluation).toMatchObject({ slide_count: 7, judged_slide_count: 5, truncated: true });
    expect(evaluation.items.filter((item) => item.dimension === 'fidelity')).toHaveLength(7);
    // judged on the truncated deck, as check_slide_count runs on the truncated file
    expect(evaluation.items[0]).toMatchObject({
      verdict: 'yes',
      explanation: '[judged by code] The number of slides is 5, which is within the required range of 3-5.',
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
    const delivered = await evaluateDeck({
      instance,
      deck: defectDeck,
      materials: [],
      judge: offlineJudge,
      slideCountOn: 'delivered',
    });
    expect(delivered.items[0]).toMatchObject({
      verdict: 'no',
      explanation:
        '[judged by code] The number of slides is 7, which is too many. The required range is 3-5 slides.',
    });
    expect(delivered.slide_count_on).toBe('delivered');
  });

  it('keeps answered items and judges only the unanswered ones when resuming', async () => {
    callsPerItem.clear();
    const client = createLlmClient('openai:gpt-rubric-resume', {
      env: fakeProviderEnv(server),
      noCache: true,
    });
    const options = {
      instance,
      deck: cleanDeck,
      materials: [],
      judge: judgeFromClient('openai:gpt-rubric-resume', client),
    };
    const first = await evaluateDeck(options);
    const before = server.requests.length;
    const resumed = await evaluateDeck({ ...options, resumeFrom: first });
    // only 2.3 (no box, five calls) is asked again
    expect(
      server.requests.slice(before).every((request) => request.text.includes('**Font Size and Legibility**')),
    ).toBe(true);
    expect(server.requests.length - before).toBe(5);
    expect(resumed.items.filter((item) => item.verdict !== 'error')).toEqual(
      first.items.filter((item) => item.verdict !== 'error'),
    );
    expect(resumed.usage.calls).toBe(first.usage.calls + 5);
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
          judge: judgeFromClient(judge, client),
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
