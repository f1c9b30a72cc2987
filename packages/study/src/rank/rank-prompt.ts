import type { Deck } from '@xsb/core';
import type { CompletionRequest, ContentPart } from '@xsb/llm';

/** The stage id of the ranking judge, in ledgers, events and plans. */
export const RANK_STAGE = 'rank';
export const PAIRWISE_STAGE = 'rank.pairwise';

/** PresentBench's "MLLM-as-a-Judge Ranking" baseline, asked as a task with a fixed answer format. */
export const RANK_SYSTEM_PROMPT = `You are an expert judge of presentation slide decks. You are given several decks made from the same source for one audience and scene. Rank them by their overall quality as a presentation for that audience and scene: content, clarity, structure and design.
Answer with one JSON object and nothing else: {"ranking": [<deck numbers, best first>]} — every deck number exactly once.`;

export const PAIRWISE_SYSTEM_PROMPT = `You are an expert judge of presentation slide decks. You are given two decks made from the same source for one audience and scene. Decide which is the better presentation for that audience and scene: content, clarity, structure and design.
Answer with one JSON object and nothing else: {"better": 1} or {"better": 2}.`;

const words = (value: string) => value.replace(/_/g, ' ');
const taskLine = (rankCase: RankCase) =>
  `Audience: ${words(rankCase.audience)}. Scene: ${words(rankCase.scene)}.`;

/** What a judge is told about a case: never a system name or a file. */
export interface RankCase {
  audience: string;
  scene: string;
}

/** A deck as a judge sees it: its slides as images (PNG, in order) for a judge that reads images, else its text. */
export interface RankDeck {
  deck: Deck;
  images?: readonly Uint8Array[];
}

/** A deck numbered as the judge sees it (`Deck 2`): its slide images, or its visible text slide by slide. */
function deckParts(entry: RankDeck, number: number): ContentPart[] {
  const { deck, images } = entry;
  if (images && images.length > 0)
    return [
      { type: 'text', text: `Deck ${number} (${images.length} slides, rendered):` },
      ...images.flatMap((data, i): ContentPart[] => [
        { type: 'text', text: `[Deck ${number}, slide ${i + 1}]` },
        { type: 'image', mediaType: 'image/png', data },
      ]),
    ];
  const slides = deck.slides.map((slide) => `--- Slide ${slide.index} ---\n${slide.visible_text.trim()}`);
  return [{ type: 'text', text: `Deck ${number} (${deck.slides.length} slides)\n\n${slides.join('\n\n')}` }];
}

/** The user turn: the task line, every deck in order, the question; plain text when no deck has images. */
function userContent(
  rankCase: RankCase,
  decks: readonly RankDeck[],
  question: string,
): string | ContentPart[] {
  const parts: ContentPart[] = [
    { type: 'text', text: taskLine(rankCase) },
    ...decks.flatMap((entry, i) => deckParts(entry, i + 1)),
    { type: 'text', text: question },
  ];
  if (parts.every((part) => part.type === 'text'))
    return parts.map((part) => (part as { text: string }).text).join('\n\n');
  return parts;
}

/** The listwise request: the decks in the given order, numbered from 1. */
export function buildRankRequest(rankCase: RankCase, decks: readonly RankDeck[]): CompletionRequest {
  return {
    system: RANK_SYSTEM_PROMPT,
    messages: [
      { role: 'user', content: userContent(rankCase, decks, `Rank the ${decks.length} decks, best first.`) },
    ],
    temperature: 0,
    maxTokens: 256,
    stage: RANK_STAGE,
  };
}

/** The pairwise request: two decks, the first shown as Deck 1. */
export function buildPairRequest(rankCase: RankCase, first: RankDeck, second: RankDeck): CompletionRequest {
  return {
    system: PAIRWISE_SYSTEM_PROMPT,
    messages: [
      { role: 'user', content: userContent(rankCase, [first, second], 'Which deck is better, 1 or 2?') },
    ],
    temperature: 0,
    maxTokens: 64,
    stage: PAIRWISE_STAGE,
  };
}

/** The first JSON object in an answer (prose and code fences around it are ignored). */
function firstJsonObject(text: string): unknown {
  const match = /\{[^{}]*\}/.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(match[0]);
  } catch {
    return undefined;
  }
}

/** The deck numbers, best first, when the answer names each of 1..n exactly once; else null. */
export function parseRankAnswer(text: string, deckCount: number): number[] | null {
  const ranking = (firstJsonObject(text) as { ranking?: unknown } | undefined)?.ranking;
  if (!Array.isArray(ranking) || ranking.length !== deckCount) return null;
  const numbers = ranking.map((value) =>
    typeof value === 'string' ? Number(value.replace(/^deck\s*/i, '')) : value,
  );
  const valid = numbers.every((value) => Number.isInteger(value) && value >= 1 && value <= deckCount);
  return valid && new Set(numbers).size === deckCount ? (numbers as number[]) : null;
}

/** 1 or 2 when the answer says which deck is better; else null. */
export function parsePairAnswer(text: string): 1 | 2 | null {
  const better = (firstJsonObject(text) as { better?: unknown } | undefined)?.better;
  const value = typeof better === 'string' ? Number(better.replace(/^deck\s*/i, '')) : better;
  return value === 1 || value === 2 ? value : null;
}

/** The corrective turn after an unreadable answer (one retry, as every judged stage does). */
export function correctiveRequest(
  request: CompletionRequest,
  answer: string,
  instruction: string,
): CompletionRequest {
  return {
    ...request,
    messages: [
      ...request.messages,
      { role: 'assistant', content: answer },
      { role: 'user', content: instruction },
    ],
  };
}
