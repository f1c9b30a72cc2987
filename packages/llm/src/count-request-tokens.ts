import { ConfigError, ProviderError, plural } from '@xsb/core';
import type OpenAI from 'openai';
import { lazyAnthropicSdk, toAnthropicBody } from './anthropic-adapter';
import { classifyFailure } from './classify-failure';
import type { CompletionRequest } from './completion-types';
import { providerBaseUrl } from './create-llm-client';
import { lazyOpenAiSdk, toOpenAiBody } from './openai-adapter';
import { parseJudgeSpec } from './parse-judge-spec';
import { requireProviderSdk } from './provider-sdks';

/** Counts the input tokens of a request with the provider's own endpoint, before any completion. */
export interface TokenCounter {
  /** `anthropic count_tokens` or `openai responses/input_tokens`. */
  readonly endpoint: string;
  count(request: CompletionRequest): Promise<number>;
}

const COUNT_ATTEMPTS = 4;
const MAX_WAIT_MS = 10_000;

type ResponsesInput = OpenAI.Responses.ResponseInputItem[];

/**
 * A chat request as Responses API input: OpenAI's only count endpoint (Chat Completions has none).
 * Its count includes the Responses format's framing, a few tokens per message off a chat completion's.
 */
function toResponsesCountBody(request: CompletionRequest, model: string) {
  const chat = toOpenAiBody(request, model, false);
  let instructions: string | undefined;
  const input: ResponsesInput = [];
  for (const message of chat.messages) {
    if (message.role === 'system') {
      instructions = typeof message.content === 'string' ? message.content : '';
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.content;
    if (typeof content === 'string' || content === null || content === undefined) {
      input.push({ role, content: content ?? '' });
      continue;
    }
    const parts = (content as OpenAI.Chat.ChatCompletionContentPart[]).map(
      (part): OpenAI.Responses.ResponseInputContent => {
        if (part.type === 'text') return { type: 'input_text', text: part.text };
        if (part.type === 'image_url')
          return { type: 'input_image', image_url: part.image_url.url, detail: 'auto' };
        if (part.type === 'file')
          return {
            type: 'input_file',
            file_data: part.file.file_data ?? '',
            filename: part.file.filename ?? 'document.pdf',
          };
        throw new TypeError(`openai token count: unsupported content part ${part.type}`);
      },
    );
    input.push({ role, content: parts });
  }
  const format = chat.response_format;
  return {
    model,
    input,
    ...(instructions !== undefined ? { instructions } : {}),
    ...(format && format.type === 'json_schema'
      ? {
          text: {
            format: {
              type: 'json_schema' as const,
              name: format.json_schema.name,
              schema: format.json_schema.schema ?? {},
              strict: false,
            },
          },
        }
      : {}),
  };
}

function redact(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join('[redacted]') : text;
}

async function withRetries(provider: string, key: string, call: () => Promise<number>): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const failure = classifyFailure(error, false);
      if (!failure.retryable || attempt >= COUNT_ATTEMPTS)
        throw new ProviderError(
          provider,
          redact(`token count failed after ${plural(attempt, 'attempt')}: ${failure.reason}`, key),
          {
            code: failure.code,
            ...(failure.status !== undefined ? { status: failure.status } : {}),
          },
        );
      const wait = Math.min(failure.retryAfterMs ?? 500 * 2 ** (attempt - 1), MAX_WAIT_MS);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** The provider's own input-token count for an `anthropic:` or `openai:` judge (other judges: ConfigError). */
export function createTokenCounter(
  judgeSpec: string,
  options: { env?: Record<string, string | undefined> } = {},
): TokenCounter {
  const spec = parseJudgeSpec(judgeSpec);
  const env = options.env ?? process.env;
  if (spec.kind !== 'anthropic' && spec.kind !== 'openai')
    throw new ConfigError(
      `judge "${judgeSpec}": provider token counts exist for anthropic: and openai: judges only`,
    );
  const variable = spec.kind === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY';
  const key = env[variable]?.trim();
  if (!key)
    throw new ConfigError(
      `counting tokens exactly for "${judgeSpec}" needs ${variable}: set it in the environment or in .env`,
    );
  requireProviderSdk(spec.kind, spec.spec);
  const baseUrl = providerBaseUrl(judgeSpec, env) as string;
  if (spec.kind === 'anthropic') {
    const sdk = lazyAnthropicSdk(key, baseUrl);
    return {
      endpoint: 'anthropic count_tokens',
      count: (request) =>
        withRetries('anthropic', key, async () => {
          // The count takes the prompt only: no answer budget or sampling settings.
          const { model, system, messages } = toAnthropicBody(request, request.model ?? spec.model);
          return (
            await (await sdk()).messages.countTokens({ model, messages, ...(system ? { system } : {}) })
          ).input_tokens;
        }),
    };
  }
  const sdk = lazyOpenAiSdk(key, baseUrl);
  return {
    endpoint: 'openai responses/input_tokens',
    count: (request) =>
      withRetries('openai', key, async () => {
        const body = toResponsesCountBody(request, request.model ?? spec.model);
        return (await (await sdk()).responses.inputTokens.count(body)).input_tokens;
      }),
  };
}
