import { hashBytes, hashCanonicalJson } from '@xsb/core';
import type { ChatMessage, CompletionRequest, ContentPart } from './completion-types';

/** Bump when the cached entry format or the key's inputs change: old entries then simply miss. */
export const CACHE_FORMAT_VERSION = 1;

type CanonicalPart =
  | { type: 'text'; text: string }
  | { type: 'image' | 'document'; mediaType: string; sha256: string; bytes: number; title?: string };

export interface CanonicalMessage {
  role: ChatMessage['role'];
  content: CanonicalPart[];
}

/** The prompt as keys see it: binary parts by sha256 and size, no cache breakpoints (they change billing only). */
export function canonicalMessages(messages: ChatMessage[]): CanonicalMessage[] {
  return messages.map((message) => ({
    role: message.role,
    content:
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content.map(canonicalPart),
  }));
}

function canonicalPart(part: ContentPart): CanonicalPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return {
    type: part.type,
    mediaType: part.mediaType,
    sha256: hashBytes(part.data),
    bytes: part.data.byteLength,
    ...(part.type === 'document' && part.title !== undefined ? { title: part.title } : {}),
  };
}

export interface CacheKeyInputs {
  provider: string;
  model: string;
  baseUrl: string;
  request: CompletionRequest;
}

/** The disk-cache key: everything that can change the answer, binary parts by hash; not the stage. */
export function cacheKeyFor({ provider, model, baseUrl, request }: CacheKeyInputs): string {
  return hashCanonicalJson({
    v: CACHE_FORMAT_VERSION,
    provider,
    model,
    // `…/v1` and `…/v1/` reach the same endpoint.
    baseUrl: baseUrl.replace(/\/+$/, ''),
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
    // An empty stop list is sent as no stop list, so it must not key a second copy of the answer.
    stop: request.stop?.length ? request.stop : null,
    seed: request.seed ?? null,
    responseSchema: request.responseSchema ?? null,
    system: request.system ?? '',
    messages: canonicalMessages(request.messages),
    ...repeatPart(request),
  });
}

/** The repeat index as a key part from 1 on: repeat 0 keeps the key (and every cache entry) it always had. */
export function repeatPart(request: Pick<CompletionRequest, 'repeat'>): { repeat?: number } {
  const repeat = request.repeat ?? 0;
  if (!Number.isInteger(repeat) || repeat < 0)
    throw new RangeError(`repeat must be a non-negative integer, got ${repeat}`);
  return repeat >= 1 ? { repeat } : {};
}

/**
 * The replay-store key (spec 002): system prompt and messages only, as a store answers as one model.
 * A repeat ≥ 1 is in it, so a store holding only the first answer misses rather than fake a retest.
 */
export function replayKeyFor(request: Pick<CompletionRequest, 'system' | 'messages' | 'repeat'>): string {
  return hashCanonicalJson({
    system: request.system ?? '',
    messages: canonicalMessages(request.messages),
    ...repeatPart(request),
  });
}

/** The messages as readable text (binary parts as placeholders): what a pending prompt line shows. */
export function renderPromptText(messages: ChatMessage[]): string {
  return canonicalMessages(messages)
    .map((message) => {
      const body = message.content
        .map((part) =>
          part.type === 'text' ? part.text : `[${part.type} ${part.mediaType} sha256:${part.sha256}]`,
        )
        .join('\n');
      return messages.length === 1 && message.role === 'user' ? body : `[${message.role}]\n${body}`;
    })
    .join('\n\n');
}
