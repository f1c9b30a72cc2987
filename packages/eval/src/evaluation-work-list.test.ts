import type { Probe, ProbeScore, StageEvent } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { describeJudge } from '@xsb/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerabilityUnits,
  claimExtractionUnit,
  imageInputRefusal,
  judgeInputModeFor,
  verificationItems,
  verificationUnits,
} from './evaluation-work-list';
import { runEvaluation } from './run-evaluation';
import { DEFAULT_CLAIM_SETTINGS } from './score-deck-correctness';
import { lexicalTestRun, makeDeck, writeEvalFixture } from './testing';

const model = describeJudge('openai:gpt-x');
const blind = describeJudge('openai:gpt-x', { readsImages: false });
const offline = describeJudge('lexical');

const probe = (n: number): Probe => ({
  probe_id: `pb_${n}`,
  source_case_id: 'c',
  scene: 's',
  question: `Question ${n}?`,
  answer: `Answer ${n}`,
  evidence: [{ locator: 'p1', text: `Answer ${n}` }],
  level: 1,
  modality: 'text',
  theme: 'result',
  metadata: {},
});

describe('the image-mode rule', () => {
  const sparse = { visible_word_count: 2, slide_count: 3 };
  const full = { visible_word_count: 300, slide_count: 3 };
  const settings = { imageModeWordsPerSlide: 3 };
  it('judges a sparse deck from images only when the judge reads images', () => {
    expect(judgeInputModeFor(sparse, settings, model)).toEqual({ mode: 'image', sparse: true });
    expect(judgeInputModeFor(sparse, settings, blind)).toEqual({ mode: 'text', sparse: true });
    expect(judgeInputModeFor(sparse, settings, offline)).toEqual({ mode: 'text', sparse: true });
    expect(judgeInputModeFor(full, settings, model)).toEqual({ mode: 'text', sparse: false });
  });
  it('takes judge input "image" as images for a judge that reads them, and refuses it for one that does not', () => {
    const image = { ...settings, judgeInput: 'image' as const };
    expect(judgeInputModeFor(full, image, model).mode).toBe('image');
    expect(imageInputRefusal('image', model)).toBeNull();
    expect(imageInputRefusal('text', blind)).toBeNull();
    expect(imageInputRefusal('image', blind)).toMatch(/the openai:gpt-x judge cannot read images/);
    expect(imageInputRefusal('image', offline)).toMatch(/the lexical judge cannot read images/);
  });
});

describe('the answerability and correctness units', () => {
  const request = {
    mode: 'text' as const,
    deckText: '[Slide 1]\nAnswer 1',
    sourceContext: 'Answer 1. Answer 2.',
  };
  const probes = [1, 2, 3, 4, 5].map(probe);
  const base = {
    job: 'j',
    reads: [],
    request,
    probes,
    batchSize: 2,
    reuseKey: 'k',
    artifact: 'scores.jsonl',
  };

  it('lists fixed batches: reused when every row is known, a call for a model, the lexical rule offline', () => {
    const known = new Map([
      ['pb_1', {} as ProbeScore],
      ['pb_2', {} as ProbeScore],
      ['pb_3', {} as ProbeScore],
    ]);
    const units = answerabilityUnits({ ...base, known }, model);
    expect(units.map((unit) => [unit.id, unit.decision.kind])).toEqual([
      ['j#batch-0', 'reuse'],
      ['j#batch-1', 'call'],
      ['j#batch-2', 'call'],
    ]);
    const call = units[1]!.decision;
    if (call.kind !== 'call') throw new Error('not a call');
    expect(call.requests).toHaveLength(1);
    expect(call.outputTokens).toBe(120);
    expect(answerabilityUnits({ ...base, known }, offline).map((unit) => unit.decision.kind)).toEqual([
      'reuse',
      'rule',
      'rule',
    ]);
  });

  it('reuses a cached extraction and verifies claims in batches', () => {
    const settings = { ...DEFAULT_CLAIM_SETTINGS, verify_batch_size: 2 };
    const input = { job: 'j', reads: [], deckText: 'x', settings, cacheKey: 'k' };
    expect(claimExtractionUnit({ ...input, cached: 'cache/k.json' }, model).decision.kind).toBe('reuse');
    expect(claimExtractionUnit({ ...input, cached: null }, model).decision.kind).toBe('call');
    expect(claimExtractionUnit({ ...input, cached: null }, offline).decision.kind).toBe('rule');
    const claims = [1, 2, 3].map((n) => ({ claim_id: `s1_c${n}`, slide_index: 1, text: `Answer ${n}` }));
    const items = verificationItems(claims, 'Answer 1. Answer 2.', settings);
    expect(items[0]!.snippets.length).toBeGreaterThan(0);
    const units = verificationUnits({ ...input, items }, model);
    expect(units.map((unit) => unit.input.items.length)).toEqual([2, 1]);
  });
});

describe('runEvaluation events', () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  beforeEach(async () => {
    temp = await makeTempDir('xsb-eval-events-');
  });
  afterEach(async () => temp.cleanup());

  it('emits the stage events of each job: batches done, then reused when only a setting changed', async () => {
    const probes = [1, 2, 3].map((n) => ({ ...probe(n), source_case_id: 'pilot' }));
    await writeEvalFixture(temp.dir, {
      cases: [{ caseLabel: 'pilot', sourceText: 'Answer 1. Answer 2.', probes, weights: { learners: {} } }],
      decks: [
        {
          run: 'r1',
          system: 'gen',
          condition: 'audience_conditioned',
          audience: 'learners',
          caseLabel: 'pilot',
          file: 'deck.pptx',
          bytes: 'deck',
        },
      ],
    });
    const run = lexicalTestRun(() => temp.dir, makeDeck(['Answer 1 and Answer 2 are here.']));
    const events: StageEvent[] = [];
    await runEvaluation({ ...run.options(), onEvent: (event) => events.push(event) });
    const done = events.filter((event) => event.type === 'unit-done');
    // Batches run concurrently: they finish in any order.
    const batches = done.filter((event) => event.stage === 'eval.answerability').map((event) => event.id);
    expect(batches.sort()).toEqual([
      'gen/audience_conditioned/learners/pilot#batch-0',
      'gen/audience_conditioned/learners/pilot#batch-1',
    ]);
    expect(done.some((event) => event.stage === 'eval.claims' && event.status === 'done')).toBe(true);
    expect(events.filter((event) => event.type === 'stage-finished').map((event) => event.stage)).toContain(
      'eval.verification',
    );
    // Another setting: the job is judged again, but its score rows still fit, so every batch is reused.
    events.length = 0;
    await runEvaluation({
      ...run.options(),
      imageModeWordsPerSlide: 2,
      onEvent: (event) => events.push(event),
    });
    const again = events.filter(
      (event) => event.type === 'unit-done' && event.stage === 'eval.answerability',
    );
    expect(again.map((event) => event.type === 'unit-done' && event.status)).toEqual(['reused', 'reused']);
  });
});
