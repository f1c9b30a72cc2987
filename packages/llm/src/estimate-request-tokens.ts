import type { CompletionRequest } from './completion-types';

/** Providers bill an image by its pixels (about 1,600 tokens for a full-size slide), not its bytes. */
const IMAGE_TOKEN_ESTIMATE = 1600;
/** A PDF is billed per page as text plus image; bytes / 100 is a rough, deliberately high guess. */
const DOCUMENT_BYTES_PER_TOKEN = 100;

/**
 * A rough token count for rate budgets before the provider reports real usage: text as UTF-8
 * bytes / 4, images at a flat estimate, documents by size, plus the answer budget.
 */
export function estimateRequestTokens(request: CompletionRequest): number {
  let tokens = Buffer.byteLength(request.system ?? '') / 4;
  for (const message of request.messages) {
    if (typeof message.content === 'string') tokens += Buffer.byteLength(message.content) / 4;
    else
      for (const part of message.content) {
        if (part.type === 'text') tokens += Buffer.byteLength(part.text) / 4;
        else if (part.type === 'image') tokens += IMAGE_TOKEN_ESTIMATE;
        else tokens += part.data.byteLength / DOCUMENT_BYTES_PER_TOKEN;
      }
  }
  return Math.ceil(tokens) + (request.maxTokens ?? 1024);
}
