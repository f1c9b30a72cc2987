import type OpenAI from 'openai';
import { cacheBreakpoints } from './cache-breakpoints';
import { failureFromStatus, MalformedAnswerError } from './classify-failure';
import type { ChatMessage, CompletionRequest, ContentPart } from './completion-types';
import { httpFetch } from './http-fetch';
import {
  answeredOutcome,
  type BatchBackend,
  type BatchEntry,
  type BatchProgress,
  CLOCK_SKEW_MS,
  type EntryOutcome,
  type OrphanHints,
  type ProviderAdapter,
  type ProviderAnswer,
} from './provider-adapter';
import { loadOpenAiSdk } from './provider-sdks';
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

/**
 * The SDK client xsb calls through, built on first use (the SDK is imported then): xsb owns retries
 * and timeouts (one policy, one count of attempts).
 */
export function lazyOpenAiSdk(apiKey: string, baseURL: string): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => {
    client ??= loadOpenAiSdk().then(
      ({ default: Sdk }) =>
        new Sdk({
          apiKey,
          baseURL,
          organization: null,
          project: null,
          maxRetries: 0,
          logLevel: 'off',
          fetch: httpFetch,
        }),
    );
    return client;
  };
}

export function createOpenAiAdapter(apiKey: string, baseUrl: string): ProviderAdapter {
  const officialApi = isOfficialOpenAi(baseUrl);
  const sdk = lazyOpenAiSdk(apiKey, baseUrl);
  return {
    provider: 'openai',
    keyVariable: 'OPENAI_API_KEY',
    baseUrl,
    batch: new OpenAiBatchBackend(sdk, officialApi),
    ready: sdk,
    async send(request, model, signal, timeoutMs): Promise<ProviderAnswer> {
      const client = await sdk();
      const completion = await client.chat.completions.create(toOpenAiBody(request, model, officialApi), {
        signal,
        timeout: timeoutMs,
      });
      return answerFromChatCompletion(completion, model);
    },
  };
}

/** OpenAI Batch limits: 50,000 requests and 200 MB per input file. */
export const OPENAI_BATCH_LIMITS = { maxRequests: 50_000, maxBytes: 200_000_000 } as const;

const ENDPOINT = '/v1/chat/completions';

type BatchStatus = OpenAI.Batches.Batch['status'];
const RUNNING: ReadonlySet<BatchStatus> = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: unknown } | null;
  error?: { code?: unknown; message?: unknown } | null;
}

/** OpenAI Batch: the JSONL goes up through `files.create` (`purpose: batch`), then `batches.create`. */
export class OpenAiBatchBackend implements BatchBackend {
  readonly provider = 'openai' as const;
  readonly maxRequests = OPENAI_BATCH_LIMITS.maxRequests;
  readonly maxBytes = OPENAI_BATCH_LIMITS.maxBytes;

  constructor(
    private readonly sdk: () => Promise<OpenAI>,
    private readonly officialApi: boolean,
  ) {}

  entryFor(customId: string, request: CompletionRequest, model: string): BatchEntry {
    const line = {
      custom_id: customId,
      method: 'POST',
      url: ENDPOINT,
      body: toOpenAiBody(request, model, this.officialApi),
    };
    const json = Buffer.from(JSON.stringify(line));
    // One JSONL line and its newline.
    return { customId, json, bytes: json.length + 1 };
  }

  async upload(entries: readonly BatchEntry[], localId: string): Promise<string> {
    // A Blob of the entries' JSON lines, not one JSONL string and copies of it.
    const jsonl = new Blob(
      entries.flatMap((entry) => [entry.json, '\n']),
      { type: 'application/jsonl' },
    );
    const { toFile } = await loadOpenAiSdk();
    const file = await (await this.sdk()).files.create({
      file: await toFile(jsonl, `xsb-${localId}.jsonl`, { type: 'application/jsonl' }),
      purpose: 'batch',
    });
    return file.id;
  }

  async create(_entries: readonly BatchEntry[], localId: string, inputFileId?: string): Promise<string> {
    if (!inputFileId) throw new TypeError('openai batch: create needs the uploaded input file');
    const batch = await (await this.sdk()).batches.create({
      input_file_id: inputFileId,
      endpoint: ENDPOINT,
      completion_window: '24h',
      metadata: { xsb_batch: localId },
    });
    return batch.id;
  }

  /** A lost batch names xsb's id in its metadata, or reads the input file xsb uploaded for it. */
  async findOrphan(hints: OrphanHints): Promise<string | undefined> {
    const client = await this.sdk();
    for await (const batch of client.batches.list({ limit: 100 })) {
      if (batch.created_at * 1000 < hints.since - CLOCK_SKEW_MS) return undefined;
      if (hints.known.has(batch.id)) continue;
      const tagged = batch.metadata?.xsb_batch === hints.localId;
      if (tagged || (hints.inputFileId !== undefined && batch.input_file_id === hints.inputFileId))
        return batch.id;
    }
    return undefined;
  }

  async progress(batchId: string): Promise<BatchProgress> {
    const batch = await (await this.sdk()).batches.retrieve(batchId);
    if (batch.status === 'failed') {
      const reasons = (batch.errors?.data ?? [])
        .map((error) => [error.code, error.message].filter(Boolean).join(': '))
        .filter((text) => text !== '');
      return {
        state: 'failed',
        providerStatus: batch.status,
        reason: reasons.length > 0 ? reasons.slice(0, 3).join('; ') : 'the batch failed validation',
      };
    }
    return RUNNING.has(batch.status)
      ? { state: 'running', providerStatus: batch.status }
      : { state: 'ended', providerStatus: batch.status };
  }

  /** Successes come from the output file, failures and expired/cancelled requests from the error file. */
  async results(batchId: string, model: string): Promise<Map<string, EntryOutcome>> {
    const client = await this.sdk();
    const batch = await client.batches.retrieve(batchId);
    const out = new Map<string, EntryOutcome>();
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const text = await (await client.files.content(fileId)).text();
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        const line = JSON.parse(raw) as OutputLine;
        if (typeof line.custom_id === 'string') out.set(line.custom_id, outcomeOf(line, model));
      }
    }
    return out;
  }

  async cancel(batchId: string): Promise<void> {
    await (await this.sdk()).batches.cancel(batchId);
  }
}

function outcomeOf(line: OutputLine, model: string): EntryOutcome {
  const status = typeof line.response?.status_code === 'number' ? line.response.status_code : undefined;
  if (status === 200)
    return answeredOutcome(() =>
      answerFromChatCompletion(line.response?.body as OpenAI.Chat.ChatCompletion, model),
    );
  if (status !== undefined) {
    const error = (line.response?.body as { error?: { message?: unknown; code?: unknown } } | undefined)
      ?.error;
    return {
      kind: 'errored',
      failure: failureFromStatus(
        status,
        typeof error?.message === 'string' ? error.message : `status ${status}`,
        typeof error?.code === 'string' ? error.code : undefined,
      ),
    };
  }
  const code = typeof line.error?.code === 'string' ? line.error.code : 'unknown';
  if (code === 'batch_expired') return { kind: 'expired' };
  if (code === 'batch_cancelled') return { kind: 'canceled' };
  const message = typeof line.error?.message === 'string' ? line.error.message : code;
  // A failure that is not an HTTP answer (the provider's own trouble): worth another round.
  return {
    kind: 'errored',
    failure: { retryable: true, code: 'batch_error', reason: `${code}: ${message}` },
  };
}
