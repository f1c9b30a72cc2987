import { basename } from 'node:path';
import { type Deck, isXsbError } from '@xsb/core';
import type { ChatMessage, CompletionRequest, ContentPart, LlmClient, TokenUsage } from '@xsb/llm';
import {
  readLenientVerdict,
  readStrictVerdict,
  storedLenientAnswer,
  verdictOfStoredAnswer,
} from './boxed-verdict';
import type { RubricParser, RubricVerdict } from './schemas/rubric-evaluation';

/** A material as the judge sees it: file name and extracted text. */
export interface MaterialText {
  name: string;
  text: string;
}

/**
 * The deck as text, labelled "File 1" like PresentBench's first attached file (its prefixes refer to
 * "the slides provided as File 1"). Speaker notes are left out: the audience never sees them.
 */
export function renderDeckForJudge(deck: Deck): string {
  const slides = deck.slides.map((slide) => `--- Slide ${slide.index} ---\n${slide.visible_text.trim()}`);
  return `File 1: the AI-generated slides (${deck.slides.length} slides)\n\n${slides.join('\n\n')}\n`;
}

export function renderMaterialForJudge(material: MaterialText, fileNumber: number): string {
  return `File ${fileNumber}: ${basename(material.name)}\n\n${material.text.trim()}\n`;
}

/**
 * The parts every item of one tier shares (with `deckPdf`, the slides' PDF goes first, as PresentBench
 * uploads it, so a multimodal judge sees the rendered design; the text rendering stays for search), in PresentBench's order (slides, then materials, then the
 * prefix), the last one marked as the cache breakpoint. Only the item text follows, so ~50 calls on
 * one deck reuse one cached prefix per tier.
 */
export function buildSharedPrefix(
  deckText: string,
  materialTexts: string[],
  prefix: string,
  deckPdf?: Uint8Array,
): ContentPart[] {
  return [
    ...(deckPdf
      ? [
          {
            type: 'document',
            mediaType: 'application/pdf',
            data: deckPdf,
            title: 'File 1: the AI-generated slides',
          } as const,
        ]
      : []),
    { type: 'text', text: deckText },
    ...materialTexts.map((text): ContentPart => ({ type: 'text', text })),
    { type: 'text', text: prefix, cacheBreakpoint: true },
  ];
}

const JUDGE_TEMPERATURE = 0;
const JUDGE_MAX_TOKENS = 2048;

/** One checklist item as its own call: shared prefix parts, then the item (PresentBench: prefix + item). */
export function buildChecklistRequest(shared: ContentPart[], item: string): CompletionRequest {
  return {
    messages: [{ role: 'user', content: [...shared, { type: 'text', text: item }] }],
    temperature: JUDGE_TEMPERATURE,
    maxTokens: JUDGE_MAX_TOKENS,
    stage: 'rubric.item',
  };
}

export const RETRY_INSTRUCTION =
  'Your answer did not contain a final verdict in the required form. Answer again and end with \\boxed{yes} or \\boxed{no}.';

/** Slide numbers the explanation cites: "Slide 3", "Slides 4, 6 and 9", "slides 10-12", "第3页". */
export function citedSlides(text: string, maxSlide = 500): number[] {
  const found = new Set<number>();
  const add = (value: number): void => {
    if (Number.isInteger(value) && value >= 1 && value <= maxSlide) found.add(value);
  };
  const english = /\b(?:slides?|pages?)\s*#?\s*(\d+(?:\s*(?:,|and|&|or|-|–|to)\s*(?:slides?\s*)?\d+)*)/gi;
  for (const match of text.matchAll(english)) {
    const list = match[1] as string;
    for (const part of list.split(/\s*(?:,|and|&|or)\s*/i)) {
      const range = /(\d+)\s*(?:-|–|to)\s*(?:slides?\s*)?(\d+)/i.exec(part);
      if (range) {
        const from = Number(range[1]);
        const to = Number(range[2]);
        if (to >= from && to - from <= 100) for (let value = from; value <= to; value += 1) add(value);
      } else {
        const single = /(\d+)/.exec(part);
        if (single) add(Number(single[1]));
      }
    }
  }
  for (const match of text.matchAll(/第\s*(\d+)\s*[页张]|幻灯片\s*(\d+)/g)) add(Number(match[1] ?? match[2]));
  return [...found].sort((a, b) => a - b);
}

export interface ItemJudgement {
  /** The answer as PresentBench stores it; null when no attempt produced one. */
  answer: string | null;
  verdict: Extract<RubricVerdict, 'yes' | 'no' | 'other' | 'not_applicable'> | null;
  raw: string | null;
  /** The judge's full last answer (PresentBench keeps the whole response as the explanation). */
  explanation: string | null;
  attempts: number;
  usage: TokenUsage;
  /** Why the item stayed unanswered, worded as judge.py's `log`. */
  log?: string;
}

const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export interface JudgeItemOptions {
  parser: RubricParser;
  maxAttempts: number;
  /** The item key (`2.11`), named in the log of an unanswered item as judge.py names it. */
  key: string;
  /** The deck, named in judge.py's "Empty response" log. */
  deckPath: string;
}

/**
 * Asks one item. `strict` (PresentBench main's `process_single_item`): an empty answer or one
 * without any `\boxed{` is asked again with the same prompt, up to `maxAttempts` calls; any box ends
 * the item, its token stored as given. Each repeat carries `seed: <attempt - 1>` so the response cache
 * cannot hand back the answer being retried (OpenAI-compatible providers receive the seed; for
 * Anthropic it only keys the cache). `lenient`: an answer without a readable verdict gets a
 * corrective turn. Provider errors end the item unanswered (`@xsb/llm` has already retried the
 * transient ones); configuration errors propagate.
 */
export async function judgeChecklistItem(
  client: LlmClient,
  request: CompletionRequest,
  options: JudgeItemOptions,
): Promise<ItemJudgement> {
  return options.parser === 'strict'
    ? judgeStrict(client, request, options)
    : judgeLenient(client, request, options);
}

async function judgeStrict(
  client: LlmClient,
  request: CompletionRequest,
  { maxAttempts, key, deckPath }: JudgeItemOptions,
): Promise<ItemJudgement> {
  let usage = ZERO_USAGE;
  let lastText: string | null = null;
  let errorMessage: string | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let text: string;
    try {
      const result = await client.complete(attempt === 1 ? request : { ...request, seed: attempt - 1 });
      usage = addUsage(usage, result.usage);
      text = result.text;
    } catch (error) {
      if (isXsbError(error) && error.kind === 'provider') {
        const log = `Unexpected error on attempt ${attempt}/${maxAttempts}: ${error.message}`;
        return unanswered(lastText, attempt, usage, log);
      }
      throw error;
    }
    // judge.py keeps the latest response, even an empty one, as the explanation.
    lastText = text;
    if (!text) {
      errorMessage = `Empty response on attempt ${attempt}/${maxAttempts} for item ${key} of ${deckPath}`;
      continue;
    }
    const reading = readStrictVerdict(text);
    if (reading) {
      return {
        answer: reading.answer,
        verdict: verdictOfStoredAnswer(reading.answer),
        raw: reading.raw,
        explanation: text,
        attempts: attempt,
        usage,
      };
    }
  }
  const log = errorMessage ?? `Failed to extract answer after ${maxAttempts} attempts for item ${key}`;
  return unanswered(lastText, maxAttempts, usage, log);
}

async function judgeLenient(
  client: LlmClient,
  request: CompletionRequest,
  { maxAttempts, key }: JudgeItemOptions,
): Promise<ItemJudgement> {
  let usage = ZERO_USAGE;
  const messages: ChatMessage[] = [...request.messages];
  let lastText: string | null = null;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let text: string;
    try {
      const result = await client.complete({ ...request, messages: [...messages] });
      usage = addUsage(usage, result.usage);
      text = result.text;
    } catch (error) {
      if (isXsbError(error) && error.kind === 'provider') {
        const log = `Unexpected error on attempt ${attempt}/${maxAttempts}: ${error.message}`;
        return unanswered(lastText, attempt, usage, log);
      }
      throw error;
    }
    lastText = text;
    const parsed = readLenientVerdict(text);
    if (parsed.answer) {
      return {
        answer: storedLenientAnswer(parsed.answer),
        verdict: parsed.answer,
        raw: parsed.raw,
        explanation: text,
        attempts: attempt,
        usage,
      };
    }
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: RETRY_INSTRUCTION });
  }
  const log = `Failed to extract answer after ${maxAttempts} attempts for item ${key}`;
  return unanswered(lastText, maxAttempts, usage, log);
}

function unanswered(
  explanation: string | null,
  attempts: number,
  usage: TokenUsage,
  log: string,
): ItemJudgement {
  return { answer: null, verdict: null, raw: null, explanation: explanation || null, attempts, usage, log };
}
