import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

export type FakeProvider = 'anthropic' | 'openai';

/**
 * The token approximation of the fake server, used for both providers: ceil(UTF-8 bytes / 4) of
 * the text, and a flat 1,600 tokens per image or document block. An answer longer than the
 * request's `max_tokens` / `max_completion_tokens` is cut to that many tokens (4 bytes each) and
 * reported as `stop_reason: 'max_tokens'` / `finish_reason: 'length'`.
 */
export function approximateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text) / 4);
}
export const BINARY_BLOCK_TOKENS = 1600;

/** The text of a message's content and its approximate tokens. */
export function textOf(content: unknown): { text: string; tokens: number } {
  if (typeof content === 'string') return { text: content, tokens: approximateTokens(content) };
  if (!Array.isArray(content)) return { text: '', tokens: 0 };
  const texts: string[] = [];
  let tokens = 0;
  for (const block of content as Array<Record<string, unknown>>) {
    if (typeof block.text === 'string') {
      texts.push(block.text);
      tokens += approximateTokens(block.text);
    } else tokens += BINARY_BLOCK_TOKENS;
  }
  return { text: texts.join('\n'), tokens };
}

/** The prompt tokens the fake server bills a request (what its usage fields report as input). */
export function promptTokensOf(provider: FakeProvider, body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  let tokens = provider === 'anthropic' ? textOf(body.system).tokens : 0;
  for (const message of messages) tokens += textOf(message.content).tokens;
  return tokens;
}

export const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const OPENAI_ERROR_TYPES: Record<number, [type: string, code: string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'unsupported_country_region_territory'],
  404: ['invalid_request_error', 'model_not_found'],
  429: ['requests', 'rate_limit_exceeded'],
  500: ['server_error', null],
  503: ['server_error', null],
};

export function anthropicErrorType(status: number): string {
  return ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The provider's own error body: Anthropic `{type: 'error', error, request_id}`, OpenAI `{error}`. */
export function errorBody(
  provider: FakeProvider,
  status: number,
  message: string,
  errorCode?: string,
): Record<string, unknown> {
  if (provider === 'anthropic')
    return {
      type: 'error',
      error: {
        type: anthropicErrorType(status),
        message,
        ...(errorCode ? { details: { error_code: errorCode } } : {}),
      },
      request_id: `req_${randomBytes(8).toString('hex')}`,
    };
  const [type, code] = OPENAI_ERROR_TYPES[status] ?? ['server_error', null];
  return { error: { message, type, param: null, code: errorCode ?? code } };
}

export interface ErrorReply {
  status: number;
  message?: string;
  errorCode?: string;
  retryAfter?: string;
  retryAfterMs?: number;
  shouldRetry?: boolean;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

/** An error answer in the provider's format, with `retry-after`, `retry-after-ms`, `x-should-retry`. */
export function sendError(res: ServerResponse, provider: FakeProvider, reply: ErrorReply): void {
  const headers: Record<string, string> = {};
  if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
  if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
  if (reply.shouldRetry !== undefined) headers['x-should-retry'] = String(reply.shouldRetry);
  else if (provider === 'anthropic' && reply.status === 529) headers['x-should-retry'] = 'true';
  sendJson(
    res,
    reply.status,
    errorBody(provider, reply.status, reply.message ?? `fake ${reply.status} error`, reply.errorCode),
    headers,
  );
}
