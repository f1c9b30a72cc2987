import { basename } from 'node:path';
import { type Deck, isXsbError } from '@xsb/core';
import type { ChatMessage, CompletionRequest, ContentPart, LlmClient, TokenUsage } from '@xsb/llm';

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

export type ParsedAnswer = 'yes' | 'no' | 'not_applicable';

/** Any LaTeX command name (`\\text`, `\\textbf`, `\\mathrm`, `\\large` ...), as PresentBench strips them. */
const LATEX_COMMAND = /\\[a-zA-Z]+\s*/g;

/** The contents of every `\boxed{...}` (balanced braces), in order. */
export function extractBoxed(text: string): string[] {
  const out: string[] = [];
  const opener = /\\boxed\s*\{/g;
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    let depth = 1;
    let index = match.index + match[0].length;
    const start = index;
    while (index < text.length && depth > 0) {
      if (text[index] === '{') depth += 1;
      else if (text[index] === '}') depth -= 1;
      index += 1;
    }
    if (depth === 0) out.push(text.slice(start, index - 1));
    opener.lastIndex = index;
  }
  return out;
}

/**
 * `\text{Yes}`, `**No**`, `"yes."`, `\textbf{NOT\ APPLICABLE}` → yes / no / not_applicable. Does what
 * PresentBench's `_normalize_boxed_token` does (drop `\command`s and braces, trim a trailing period,
 * lower-case) and also drops markdown emphasis, quotes, `\ ` spacing and trailing `!`, and reads
 * 是/否 and n/a.
 */
function normaliseBoxedAnswer(raw: string): ParsedAnswer | null {
  const value = raw
    .replace(/\\[ ,;:!]/g, ' ')
    .replace(LATEX_COMMAND, '')
    .replace(/[{}*_`"'“”‘’]/g, '')
    .replace(/[.!。！\s]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  if (value === 'yes' || value === '是') return 'yes';
  if (value === 'no' || value === '否') return 'no';
  if (value === 'not applicable' || value === 'n/a') return 'not_applicable';
  return null;
}

/**
 * Reads the verdict the way PresentBench's current judge.py (`_extract_boxed_verdict`, f228b29) does:
 * every `\boxed{...}` with balanced braces, the last one that reads as a verdict wins (models often
 * quote the `\boxed{...}` template or reason with boxed text first). Older PresentBench versions took
 * the first `\boxed\{([^}]+)\}`, storing `\text{Yes` for `\boxed{\text{Yes}}`, which their scoring
 * never counted as "yes".
 */
export function parseVerdict(text: string): { answer: ParsedAnswer | null; raw: string | null } {
  const boxed = extractBoxed(text);
  for (let index = boxed.length - 1; index >= 0; index -= 1) {
    const raw = boxed[index] as string;
    const answer = normaliseBoxedAnswer(raw);
    if (answer) return { answer, raw };
  }
  return { answer: null, raw: boxed[0] ?? null };
}

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
  answer: ParsedAnswer | null;
  raw: string | null;
  /** The judge's full last answer (PresentBench keeps the whole response as the explanation). */
  explanation: string | null;
  attempts: number;
  usage: TokenUsage;
  /** Provider failure that ended the item, if any. */
  failure?: string;
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

/**
 * Asks one item; an answer without a readable `\boxed{}` verdict is retried with a corrective turn
 * (which also keeps the retry out of the response cache), up to `maxAttempts` calls. Provider errors
 * end the item as unanswered; configuration errors propagate.
 */
export async function judgeChecklistItem(
  client: LlmClient,
  request: CompletionRequest,
  maxAttempts: number,
): Promise<ItemJudgement> {
  let usage = ZERO_USAGE;
  const messages: ChatMessage[] = [...request.messages];
  let lastText: string | null = null;
  let raw: string | null = null;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let text: string;
    try {
      const result = await client.complete({ ...request, messages: [...messages] });
      usage = addUsage(usage, result.usage);
      text = result.text;
    } catch (error) {
      if (isXsbError(error) && error.kind === 'provider') {
        return { answer: null, raw, explanation: lastText, attempts: attempt, usage, failure: error.message };
      }
      throw error;
    }
    lastText = text;
    const parsed = parseVerdict(text);
    raw = parsed.raw;
    if (parsed.answer)
      return { answer: parsed.answer, raw: parsed.raw, explanation: text, attempts: attempt, usage };
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: RETRY_INSTRUCTION });
  }
  return { answer: null, raw, explanation: lastText, attempts: maxAttempts, usage };
}
