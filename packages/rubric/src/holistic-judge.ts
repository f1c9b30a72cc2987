import { type Deck, InputError, isXsbError } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import type { CompletionRequest, LlmClient } from '@xsb/llm';
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
    stage: 'rubric.holistic',
  };
}

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

/**
 * The holistic baseline over a results tree (decks found like `runRubric` finds them), so its scores
 * can be aligned with human rankings next to the checklist scores. A deck that cannot be read or
 * judged becomes a row with its error; the run goes on.
 */
export async function runHolistic(options: {
  instancesDir: string;
  resultsDir: string;
  client: LlmClient;
}): Promise<HolisticRunRow[]> {
  const rows: HolisticRunRow[] = [];
  for (const entry of await findInstances(options.instancesDir)) {
    // Sample ids must match `runRubric`'s rows (the instance id), so both evaluators align on them.
    const instanceId = await entry.load().then(
      (instance) => instance.id,
      () => entry.relativePath,
    );
    const deckPath = findPresentBenchDeck(options.resultsDir, entry.relativePath);
    if (!deckPath) {
      rows.push({
        instance_id: instanceId,
        deck_path: null,
        score: null,
        error: 'no slides.pdf or slides.pptx',
      });
      continue;
    }
    try {
      const score = await judgeHolistic(options.client, await readDeck(deckPath));
      rows.push({ instance_id: instanceId, deck_path: deckPath, score, error: null });
    } catch (error) {
      if (!(isXsbError(error) && (error.kind === 'input' || error.kind === 'provider'))) throw error;
      rows.push({ instance_id: instanceId, deck_path: deckPath, score: null, error: error.message });
    }
  }
  return rows;
}
