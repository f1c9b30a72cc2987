import { type Deck, executeWorkList, InputError, isXsbError, UsageError, type WorkUnit } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { CompletionRequest, Judge, JudgeDescription, LlmClient } from '@xsb/llm';
import { z } from 'zod';
import { renderDeckForJudge } from './checklist-item-judge';
import { findPresentBenchDeck } from './load-presentbench-case';
import { findInstances } from './run-rubric';

/**
 * The PPTEval-style baseline the paper compares against (spec 001, §4.3–4.4): one holistic call that
 * rates the whole deck 1–5 on content, design and coherence, with no instance-specific criteria.
 */
export const HOLISTIC_SYSTEM_PROMPT = `You are an expert evaluator of presentation slide decks. Rate the deck you are given on three aspects, each with an integer from 1 (very poor) to 5 (excellent):
- content: are the slides informative, accurate and well written, with concise text and supporting visuals where needed?
- design: is the visual design consistent, legible and uncluttered, with a sensible layout and colour scheme?
- coherence: does the deck follow a clear, logical structure from opening to conclusion, with smooth transitions between slides?
Answer with one JSON object and nothing else: {"content": {"score": <1-5>, "reason": "..."}, "design": {"score": <1-5>, "reason": "..."}, "coherence": {"score": <1-5>, "reason": "..."}}`;

const aspect = z.object({ score: z.number().int().min(1).max(5), reason: z.string().default('') });
const holisticAnswerSchema = z.object({ content: aspect, design: aspect, coherence: aspect });
export type HolisticAnswer = z.infer<typeof holisticAnswerSchema>;

export interface HolisticScore extends HolisticAnswer {
  /** Mean of the three aspect scores (1–5), PresentBench's `scores.overall`. */
  overall: number;
  /** `(overall - 1) * 25`, the 0–100 rescaling PresentBench applies to PPTEval. */
  overall_percent: number;
}

function buildHolisticRequest(deck: Deck): CompletionRequest {
  return {
    system: HOLISTIC_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: renderDeckForJudge(deck) }],
    temperature: 0,
    maxTokens: 1024,
    stage: HOLISTIC_STAGE,
  };
}

/** The stage id of the holistic baseline, as in ledgers and events. */
export const HOLISTIC_STAGE = 'rubric.holistic';

/** Typical answer tokens: three scores with a one-sentence reason each. */
const HOLISTIC_OUTPUT_TOKENS = 150;

/** Takes the first balanced `{...}` in the answer (prose and code fences around it are ignored). */
function firstJsonObject(text: string): unknown {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) {
        try {
          return JSON.parse(text.slice(start, i + 1));
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

/** Reads the holistic answer; bare numbers (`"content": 4`) are accepted as scores. */
export function parseHolisticAnswer(text: string): HolisticScore | null {
  const raw = firstJsonObject(text) as Record<string, unknown> | undefined;
  if (!raw || typeof raw !== 'object') return null;
  const lifted = Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [
      key.toLowerCase(),
      typeof value === 'number' ? { score: value } : value,
    ]),
  );
  const parsed = holisticAnswerSchema.safeParse(lifted);
  if (!parsed.success) return null;
  const overall = (parsed.data.content.score + parsed.data.design.score + parsed.data.coherence.score) / 3;
  return { ...parsed.data, overall, overall_percent: (overall - 1) * 25 };
}

/** One holistic judgement, with one corrective retry for an unreadable answer. */
export async function judgeHolistic(client: LlmClient, deck: Deck): Promise<HolisticScore> {
  const request = buildHolisticRequest(deck);
  const first = await client.complete(request);
  const parsed = parseHolisticAnswer(first.text);
  if (parsed) return parsed;
  const retry = await client.complete({
    ...request,
    messages: [
      ...request.messages,
      { role: 'assistant', content: first.text },
      { role: 'user', content: 'Reply with the JSON object only, each score an integer from 1 to 5.' },
    ],
  });
  const second = parseHolisticAnswer(retry.text);
  if (!second) throw new InputError(`holistic judge gave no readable 1-5 scores for ${deck.deck_path}`);
  return second;
}

export interface HolisticRunRow {
  instance_id: string;
  deck_path: string | null;
  score: HolisticScore | null;
  error: string | null;
}

/** One deck of a results tree: judged by one call (its request listed), or a row without a deck. */
export type HolisticUnit = WorkUnit<
  CompletionRequest,
  { instanceId: string; deckPath: string | null; deck: Deck | null; error: string | null }
>;

export interface HolisticRunOptions {
  instancesDir: string;
  resultsDir: string;
}

/** The judge of the holistic baseline: a model (there is no offline holistic judge). */
function requireModelJudge(judge: Pick<JudgeDescription, 'kind'>): void {
  if (judge.kind === 'offline')
    throw new UsageError(
      'the holistic baseline has no offline judge; it needs a model judge (<provider>:<model>)',
    );
}

/** A deck's unit: its request, or the row's error when the deck cannot be read. */
async function holisticUnit(instanceId: string, deckPath: string | null): Promise<HolisticUnit> {
  const base = { stage: HOLISTIC_STAGE, id: instanceId, reads: deckPath ? [deckPath] : [], reuseKey: '' };
  if (!deckPath) {
    const input = { instanceId, deckPath, deck: null, error: 'no slides.pdf or slides.pptx' };
    return { ...base, decision: { kind: 'rule', rule: 'no deck: the row records it' }, input };
  }
  try {
    const deck = await readDeck(deckPath);
    const request = buildHolisticRequest(deck);
    const outputTokens = Math.min(HOLISTIC_OUTPUT_TOKENS, request.maxTokens ?? HOLISTIC_OUTPUT_TOKENS);
    return {
      ...base,
      decision: { kind: 'call', requests: [request], outputTokens },
      input: { instanceId, deckPath, deck, error: null },
    };
  } catch (error) {
    if (!(isXsbError(error) && error.kind === 'input')) throw error;
    const input = { instanceId, deckPath, deck: null, error: error.message };
    return { ...base, decision: { kind: 'rule', rule: 'unreadable deck: the row records it' }, input };
  }
}

/**
 * The holistic baseline over a results tree as a work list (decks found like `runRubric` finds them):
 * one call per deck (a corrective retry, when the answer does not read, is not listed). Reads the
 * decks, writes nothing; `runHolistic` runs it and a plan prices it.
 */
export async function holisticWorkList(
  options: HolisticRunOptions,
  judge: Pick<JudgeDescription, 'kind'>,
): Promise<HolisticUnit[]> {
  requireModelJudge(judge);
  const units: HolisticUnit[] = [];
  for (const entry of await findInstances(options.instancesDir)) {
    // Sample ids must match `runRubric`'s rows (the instance id), so both evaluators align on them.
    const instanceId = await entry.load().then(
      (instance) => instance.id,
      () => entry.relativePath,
    );
    units.push(
      await holisticUnit(instanceId, findPresentBenchDeck(options.resultsDir, entry.relativePath) ?? null),
    );
  }
  return units;
}

/**
 * The holistic baseline over a results tree, so its scores can be aligned with human rankings next
 * to the checklist scores. A deck that cannot be read or judged becomes a row with its error; the
 * run goes on.
 */
export async function runHolistic(options: HolisticRunOptions & { judge: Judge }): Promise<HolisticRunRow[]> {
  const { judge } = options;
  const units = await holisticWorkList(options, judge);
  const outcomes = await executeWorkList(units, {
    unitName: 'decks',
    stopsStage: (error) => !(isXsbError(error) && (error.kind === 'input' || error.kind === 'provider')),
    run: async ({ input }): Promise<HolisticScore | null> =>
      input.deck && judge.client ? judgeHolistic(judge.client, input.deck) : null,
  });
  return outcomes.map(({ unit, result, error }) => ({
    instance_id: unit.input.instanceId,
    deck_path: unit.input.deckPath,
    score: result ?? null,
    error: unit.input.error ?? (error instanceof Error ? error.message : null),
  }));
}
