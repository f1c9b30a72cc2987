import type Anthropic from '@anthropic-ai/sdk';
import { cacheBreakpoints } from './cache-breakpoints';
import type { CompletionRequest, ContentPart } from './completion-types';
import { MalformedAnswerError, type ProviderAnswer } from './provider-adapter';

/** Anthropic accepts at most four cache breakpoints per request; the last four (longest prefixes) are kept. */
const MAX_BREAKPOINTS = 4;
const DEFAULT_MAX_TOKENS = 4096;

type Block = Anthropic.TextBlockParam | Anthropic.ImageBlockParam | Anthropic.DocumentBlockParam;

function toBlock(part: ContentPart, cached: boolean): Block {
  const cache = cached ? { cache_control: { type: 'ephemeral' as const } } : {};
  if (part.type === 'text') return { type: 'text', text: part.text, ...cache };
  const data = Buffer.from(part.data).toString('base64');
  if (part.type === 'image')
    return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data }, ...cache };
  return {
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data },
    ...(part.title !== undefined ? { title: part.title } : {}),
    ...cache,
  };
}

/** The response schema as an instruction: the Messages API is used without a structured-output switch. */
function schemaInstruction(request: CompletionRequest): string {
  if (!request.responseSchema) return '';
  return `\n\nAnswer with one JSON value that matches this JSON Schema (named "${request.responseSchema.name}"), and nothing else:\n${JSON.stringify(request.responseSchema.schema)}`;
}

/** Renders the common request as a Messages API body, with `cache_control` at marked breakpoints. */
export function toAnthropicBody(
  request: CompletionRequest,
  model: string,
): Anthropic.MessageCreateParamsNonStreaming {
  const kept = new Set(
    cacheBreakpoints(request.messages)
      .slice(-MAX_BREAKPOINTS)
      .map(([m, p]) => `${m}:${p}`),
  );
  const system = `${request.system ?? ''}${schemaInstruction(request)}`;
  return {
    model,
    max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(system ? { system } : {}),
    messages: request.messages.map((message, m) => ({
      role: message.role,
      content:
        typeof message.content === 'string'
          ? message.content
          : message.content.map((part, p) => toBlock(part, kept.has(`${m}:${p}`))),
    })),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.stop?.length ? { stop_sequences: request.stop } : {}),
  };
}

/** The common answer of a Messages API message (online, or one succeeded batch result). */
export function answerFromAnthropicMessage(message: Anthropic.Message, model: string): ProviderAnswer {
  if (!Array.isArray(message?.content) || !message.usage)
    throw new MalformedAnswerError('the answer has no content or usage');
  const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  const usage = message.usage;
  return {
    text,
    // A compatible server may leave the model out; the ledger needs one.
    model: message.model || model,
    stopReason:
      message.stop_reason === 'end_turn'
        ? 'end'
        : message.stop_reason === 'max_tokens' || message.stop_reason === 'stop_sequence'
          ? message.stop_reason
          : 'other',
    usage: {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadTokens: usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
    },
  };
}
