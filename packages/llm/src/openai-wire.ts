import type OpenAI from 'openai';
import { cacheBreakpoints } from './cache-breakpoints';
import type { ChatMessage, CompletionRequest, ContentPart } from './completion-types';
import { MalformedAnswerError, type ProviderAnswer } from './provider-adapter';
import { replayKeyFor } from './request-key';

type UserPart = OpenAI.Chat.ChatCompletionContentPart;

function toUserPart(part: ContentPart): UserPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const data = Buffer.from(part.data).toString('base64');
  if (part.type === 'image')
    return { type: 'image_url', image_url: { url: `data:${part.mediaType};base64,${data}` } };
  return {
    type: 'file',
    file: { filename: part.title ?? 'document.pdf', file_data: `data:application/pdf;base64,${data}` },
  };
}

function textOnly(parts: ContentPart[]): string | undefined {
  if (!parts.every((part) => part.type === 'text')) return undefined;
  return parts.map((part) => (part as { text: string }).text).join('\n\n');
}

/** Chat messages with the shared prefix exactly as given, so OpenAI's prefix cache sees identical bytes. */
function toMessages(request: CompletionRequest): OpenAI.Chat.ChatCompletionMessageParam[] {
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (request.system) out.push({ role: 'system', content: request.system });
  for (const message of request.messages as ChatMessage[]) {
    if (typeof message.content === 'string') {
      out.push({ role: message.role, content: message.content });
      continue;
    }
    const text = textOnly(message.content);
    if (message.role === 'assistant') {
      // Chat Completions takes text only from the assistant; dropping an image would change the prompt.
      if (text === undefined)
        throw new TypeError('openai: an assistant message may hold text parts only, not images or documents');
      out.push({ role: 'assistant', content: text });
    } else {
      out.push({ role: 'user', content: text ?? message.content.map(toUserPart) });
    }
  }
  return out;
}

/**
 * For api.openai.com: a `prompt_cache_key` naming the marked prefix (system + every part up to the
 * last cache breakpoint, binary parts by hash), so calls sharing it are routed to the same cache.
 */
function promptCacheKey(request: CompletionRequest): string | undefined {
  const last = cacheBreakpoints(request.messages).at(-1);
  if (!last) return undefined;
  const [lastMessage, lastPart] = last;
  const prefix = request.messages
    .slice(0, lastMessage + 1)
    .map((message, m) =>
      m < lastMessage || typeof message.content === 'string'
        ? message
        : { ...message, content: message.content.slice(0, lastPart + 1) },
    );
  return `xsb-${replayKeyFor({ system: request.system ?? '', messages: prefix }).slice(0, 32)}`;
}

export function toOpenAiBody(
  request: CompletionRequest,
  model: string,
  officialApi: boolean,
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const cacheKey = officialApi ? promptCacheKey(request) : undefined;
  return {
    model,
    messages: toMessages(request),
    ...(cacheKey ? { prompt_cache_key: cacheKey } : {}),
    ...(request.maxTokens !== undefined
      ? // api.openai.com wants max_completion_tokens (reasoning models refuse max_tokens); compatible
        // servers such as vLLM and Ollama know max_tokens.
        officialApi
        ? { max_completion_tokens: request.maxTokens }
        : { max_tokens: request.maxTokens }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.stop?.length ? { stop: request.stop } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(request.responseSchema
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: {
              name: request.responseSchema.name,
              schema: request.responseSchema.schema,
              strict: false,
            },
          },
        }
      : {}),
  };
}

/** The common answer of a chat completion (online, or the body of one batch output line). */
export function answerFromChatCompletion(
  completion: OpenAI.Chat.ChatCompletion,
  model: string,
): ProviderAnswer {
  // The SDK hands back `undefined` for a 2xx with an empty body.
  if (!completion || typeof completion !== 'object')
    throw new MalformedAnswerError('the answer body is empty');
  const choice = completion.choices?.[0];
  if (!choice) throw new MalformedAnswerError('the answer has no choices');
  const usage = completion.usage;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text: choice.message?.content ?? '',
    model: completion.model || model,
    // OpenAI reports a stop sequence as a plain `stop`.
    stopReason:
      choice.finish_reason === 'stop' ? 'end' : choice.finish_reason === 'length' ? 'max_tokens' : 'other',
    usage: {
      inputTokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
      outputTokens: usage?.completion_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
  };
}

/** api.openai.com itself (not a compatible server): decides `max_completion_tokens` and `prompt_cache_key`. */
export function isOfficialOpenAi(baseUrl: string): boolean {
  return /^https:\/\/api\.openai\.com(\/|$)/.test(baseUrl);
}
