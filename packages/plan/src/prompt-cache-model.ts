import { createHash } from 'node:crypto';
import type { CompletionRequest, ContentPart } from '@xsb/llm';

/** Anthropic caches a prefix of at least 1,024 tokens (most models); OpenAI caches prompts from 1,024 tokens. */
export const MIN_CACHEABLE_TOKENS = 1024;
/** OpenAI reports cached input in steps of 128 tokens. */
const OPENAI_CACHE_STEP = 128;
/** Anthropic reads at most the last four breakpoints of a request (the llm package sends those). */
const MAX_BREAKPOINTS = 4;

/** What the provider's prompt cache does to one call's input tokens (in estimator tokens). */
export interface PromptCacheEffect {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

const NONE: PromptCacheEffect = { cacheReadTokens: 0, cacheWriteTokens: 0 };

/** The estimator's tokens of one part (the same rule as `estimateTokens`). */
function partTokens(part: ContentPart): number {
  if (part.type === 'text') return Buffer.byteLength(part.text) / 4;
  if (part.type === 'image') return 1600;
  return part.data.byteLength / 100;
}

function hashPart(hash: ReturnType<typeof createHash>, part: ContentPart): void {
  if (part.type === 'text') hash.update(`t\u0000${part.text}\u0000`);
  else hash.update(`${part.type}\u0000`).update(createHash('sha256').update(part.data).digest());
}

/**
 * The prefixes of a request in prompt order, one per part boundary: the system prompt (with the
 * response schema, which the Anthropic adapter appends to it) and every part up to there, with its
 * estimated tokens, a digest (model included: caches are per model) and whether a `cacheBreakpoint`
 * ends it.
 */
function prefixesOf(
  request: CompletionRequest,
  model: string,
): Array<{ digest: string; tokens: number; marked: boolean }> {
  const hash = createHash('sha256').update(`${model}\u0000${request.system ?? ''}\u0000`);
  let tokens = Buffer.byteLength(request.system ?? '') / 4;
  if (request.responseSchema) {
    const schema = JSON.stringify(request.responseSchema.schema);
    hash.update(schema);
    tokens += Buffer.byteLength(schema) / 4;
  }
  const prefixes: Array<{ digest: string; tokens: number; marked: boolean }> = [];
  for (const message of request.messages) {
    hash.update(`${message.role}\u0000`);
    const parts: ContentPart[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const part of parts) {
      hashPart(hash, part);
      tokens += partTokens(part);
      prefixes.push({
        digest: hash.copy().digest('hex'),
        tokens: Math.ceil(tokens),
        marked: part.cacheBreakpoint === true,
      });
    }
  }
  return prefixes;
}

/**
 * The providers' prompt caches as xsb uses them, call by call in the order a run sends them.
 *
 * - Anthropic: each `cacheBreakpoint` (`cache_control`) ends a prefix. The longest prefix written
 *   before is read; every longer marked prefix of at least {@link MIN_CACHEABLE_TOKENS} is written
 *   (its tokens beyond the read part are cache writes). So a deck's prefix is written by its first
 *   call and read by every later one. Not modelled: the 5-minute TTL (xsb's calls of one deck
 *   follow each other within seconds) and concurrent first calls that each write the same prefix
 *   before any of them finished (the rubric sends the first item of each tier alone for this reason).
 * - OpenAI: caching is automatic for prompts of at least 1,024 tokens: a later prompt reads the
 *   longest prefix it shares with an earlier one (here: at part boundaries, marked or not, so the
 *   deck shared by both rubric tiers counts), rounded down to a multiple of 128 tokens. No writes.
 * - Other providers (replay, record, lexical): no caching.
 */
export class PromptCacheModel {
  private readonly written = new Set<string>();

  constructor(
    private readonly provider: string,
    private readonly minTokens = MIN_CACHEABLE_TOKENS,
  ) {}

  /** The effect on this call; records what it writes for the calls after it. */
  apply(request: CompletionRequest, model: string, inputTokens: number): PromptCacheEffect {
    if (this.provider !== 'anthropic' && this.provider !== 'openai') return NONE;
    const all = prefixesOf(request, model);
    if (this.provider === 'openai') {
      // Automatic: the longest part-aligned prefix seen before, marked or not.
      let read = 0;
      for (const prefix of all) if (this.written.has(prefix.digest)) read = Math.max(read, prefix.tokens);
      if (inputTokens >= this.minTokens) for (const prefix of all) this.written.add(prefix.digest);
      if (read < this.minTokens || inputTokens < this.minTokens) return NONE;
      const cached = Math.floor(Math.min(read, inputTokens) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
      return { cacheReadTokens: cached, cacheWriteTokens: 0 };
    }
    const prefixes = all.filter((prefix) => prefix.marked).slice(-MAX_BREAKPOINTS);
    if (prefixes.length === 0) return NONE;
    let read = 0;
    for (const prefix of prefixes) if (this.written.has(prefix.digest)) read = Math.max(read, prefix.tokens);
    let written = 0;
    for (const prefix of prefixes) {
      if (prefix.tokens <= read || prefix.tokens < this.minTokens) continue;
      this.written.add(prefix.digest);
      written = Math.max(written, prefix.tokens);
    }
    const cacheReadTokens = Math.min(read, inputTokens);
    const cacheWriteTokens = Math.min(Math.max(0, written - read), inputTokens - cacheReadTokens);
    return { cacheReadTokens, cacheWriteTokens };
  }
}
