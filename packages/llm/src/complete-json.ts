import { InputError } from '@xsb/core';
import type { z } from 'zod';
import type { CompletionRequest, CompletionResult, LlmClient } from './completion-types';

/** The answer could not be read as the expected JSON even after one corrective call: a failed row. */
export class StructuredAnswerError extends InputError {
  constructor(
    message: string,
    readonly finding: string,
    readonly answer: string,
  ) {
    super(message, { code: 'structured_answer', details: { finding, answer: answer.slice(0, 2000) } });
  }
}

/**
 * Finds the JSON value in an answer: the whole text, else the first ```json (or bare ```) fence
 * that parses, else the first balanced {...} or [...] span that parses. Undefined when none does.
 */
export function extractJson(text: string): unknown {
  const attempt = (candidate: string): { ok: true; value: unknown } | { ok: false } => {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      return { ok: false };
    }
  };
  const whole = attempt(text.trim());
  if (whole.ok) return whole.value;
  for (const match of text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g)) {
    const fenced = attempt((match[1] ?? '').trim());
    if (fenced.ok) return fenced.value;
  }
  // Each start scans ahead, so an answer full of stray brackets costs quadratic time; past a budget
  // of characters scanned the search gives up (the corrective call then asks for clean JSON).
  const budget = { steps: SPAN_SEARCH_BUDGET, stack: new Uint8Array(64) };
  for (let start = 0; start < text.length && budget.steps > 0; start += 1) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    const end = balancedEnd(text, start, budget);
    if (end === -1) continue;
    // Parsing the span costs about as much again as scanning it.
    budget.steps -= end + 1 - start;
    const span = attempt(text.slice(start, end + 1));
    if (span.ok) return span.value;
  }
  return undefined;
}

/** Characters the balanced-span search may scan in all: tens of ms, far beyond any real answer's need. */
const SPAN_SEARCH_BUDGET = 20_000_000;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the bracket closing the one at `start`, skipping strings; -1 when unbalanced or out of budget. */
function balancedEnd(text: string, start: number, budget: { steps: number; stack: Uint8Array }): number {
  let depth = 0;
  let inString = false;
  const end = Math.min(text.length, start + budget.steps);
  for (let i = start; i < end; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i += 1;
      else if (ch === QUOTE) inString = false;
      continue;
    }
    if (ch === QUOTE) inString = true;
    else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
      if (depth === budget.stack.length) {
        const grown = new Uint8Array(depth * 2);
        grown.set(budget.stack);
        budget.stack = grown;
      }
      budget.stack[depth] = ch === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      depth += 1;
    } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) {
      if (depth === 0 || budget.stack[depth - 1] !== ch) {
        budget.steps -= i + 1 - start;
        return -1;
      }
      depth -= 1;
      if (depth === 0) {
        budget.steps -= i + 1 - start;
        return i;
      }
    }
  }
  budget.steps -= end - start;
  return -1;
}

type Check<T> = { ok: true; value: T } | { ok: false; finding: string };

function check<S extends z.ZodType>(text: string, schema: S): Check<z.infer<S>> {
  const json = extractJson(text);
  if (json === undefined) return { ok: false, finding: 'the answer contains no parseable JSON value' };
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, finding: `the JSON does not match the expected shape (${issues})` };
}

/** A failed answer that hit the token limit says so: a bigger `maxTokens` is then the fix. */
function withCutOff<T>(result: Check<T>, answer: CompletionResult): Check<T> {
  if (result.ok || answer.stopReason !== 'max_tokens') return result;
  return { ok: false, finding: `${result.finding}; the answer was cut off at the token limit` };
}

export interface CompleteJsonOptions {
  stage?: string;
  /** Hears the usage of each call made, the corrective one included (a stage's `call-made` event). */
  callMade?: (usage: CompletionResult['usage']) => void;
}

/**
 * One call whose answer must be JSON matching `schema`; else one corrective call carrying the finding
 * back to the model, then a StructuredAnswerError (an InputError: the caller records a failed row).
 */
export async function completeJson<S extends z.ZodType>(
  client: LlmClient,
  request: CompletionRequest,
  schema: S,
  options: CompleteJsonOptions = {},
): Promise<{ value: z.infer<S>; result: CompletionResult }> {
  const staged: CompletionRequest = options.stage ? { ...request, stage: options.stage } : request;
  const first = await client.complete(staged);
  options.callMade?.(first.usage);
  const firstCheck = withCutOff(check(first.text, schema), first);
  if (firstCheck.ok) return { value: firstCheck.value, result: first };

  const corrective: CompletionRequest = {
    ...staged,
    messages: [
      ...staged.messages,
      { role: 'assistant', content: first.text },
      {
        role: 'user',
        content: `Your answer could not be used: ${firstCheck.finding}. Reply again with only the corrected JSON value, no prose and no code fences.`,
      },
    ],
  };
  const second = await client.complete(corrective);
  options.callMade?.(second.usage);
  const secondCheck = withCutOff(check(second.text, schema), second);
  if (secondCheck.ok) return { value: secondCheck.value, result: second };
  throw new StructuredAnswerError(
    `${client.judgeId}: the answer is not the expected JSON after one corrective call (${secondCheck.finding})`,
    secondCheck.finding,
    second.text,
  );
}
