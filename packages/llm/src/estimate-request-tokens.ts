import type { CompletionRequest } from './completion-types';

/** Providers bill an image by its pixels (about 1,600 tokens for a full-size slide), not its bytes. */
const IMAGE_TOKEN_ESTIMATE = 1600;
/** A PDF is billed per page as text plus image; bytes / 100 is a rough, deliberately high guess. */
const DOCUMENT_BYTES_PER_TOKEN = 100;
/** English text and JSON run about 4 UTF-8 bytes per token with both providers' tokenizers. */
const BYTES_PER_TOKEN = 4;
/**
 * The answer budget assumed when a request sets no `maxTokens`: the Anthropic adapter sends 4,096
 * then, and OpenAI's rate limiter counts the answer budget too.
 */
export const DEFAULT_ANSWER_BUDGET = 4096;

export interface TokenEstimate {
  /** Prompt tokens: system, messages and the response schema. */
  inputTokens: number;
  /** The answer budget (`maxTokens`, else {@link DEFAULT_ANSWER_BUDGET}): the most the answer can cost. */
  maxOutputTokens: number;
}

/**
 * Tokens of a request before any call: UTF-8 bytes / 4 for text (and a response schema), 1,600 per
 * image, PDF bytes / 100. No tokenizer: provider tokenizers differ and are not all public.
 */
export function estimateTokens(request: CompletionRequest): TokenEstimate {
  let bytes = Buffer.byteLength(request.system ?? '');
  let tokens = 0;
  if (request.responseSchema) bytes += Buffer.byteLength(JSON.stringify(request.responseSchema.schema));
  for (const message of request.messages) {
    if (typeof message.content === 'string') bytes += Buffer.byteLength(message.content);
    else
      for (const part of message.content) {
        if (part.type === 'text') bytes += Buffer.byteLength(part.text);
        else if (part.type === 'image') tokens += IMAGE_TOKEN_ESTIMATE;
        else tokens += part.data.byteLength / DOCUMENT_BYTES_PER_TOKEN;
      }
  }
  return {
    inputTokens: Math.ceil(tokens + bytes / BYTES_PER_TOKEN),
    maxOutputTokens: request.maxTokens ?? DEFAULT_ANSWER_BUDGET,
  };
}
