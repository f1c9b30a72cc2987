import type Anthropic from '@anthropic-ai/sdk';
import { cacheBreakpoints } from './cache-breakpoints';
import { failureFromStatus, MalformedAnswerError } from './classify-failure';
import type { CompletionRequest, ContentPart } from './completion-types';
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
import { loadAnthropicSdk } from './provider-sdks';

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

/**
 * The SDK client xsb calls through, built on first use (the SDK is imported then): xsb owns retries
 * and timeouts (one policy, one count of attempts).
 */
export function lazyAnthropicSdk(apiKey: string, baseURL: string): () => Promise<Anthropic> {
  let client: Promise<Anthropic> | undefined;
  return () => {
    client ??= loadAnthropicSdk().then(
      ({ default: Sdk }) =>
        new Sdk({
          apiKey,
          authToken: null,
          baseURL,
          maxRetries: 0,
          openTelemetry: false,
          logLevel: 'off',
          fetch: httpFetch,
        }),
    );
    return client;
  };
}

export function createAnthropicAdapter(apiKey: string, baseUrl: string): ProviderAdapter {
  const sdk = lazyAnthropicSdk(apiKey, baseUrl);
  return {
    provider: 'anthropic',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrl,
    batch: new AnthropicBatchBackend(sdk),
    ready: sdk,
    async send(request, model, signal, timeoutMs): Promise<ProviderAnswer> {
      const client = await sdk();
      // The same POST `messages.create` makes, minus its console.warn on every call naming a
      // deprecated model: a run makes thousands of calls, and a library must not write to the console.
      const message = await client.post<Anthropic.Message>('/v1/messages', {
        body: toAnthropicBody(request, model),
        signal,
        timeout: timeoutMs,
      });
      return answerFromAnthropicMessage(message, model);
    },
  };
}

/** Message Batches limits: 100,000 requests or 256 MB per batch, whichever comes first. */
export const ANTHROPIC_BATCH_LIMITS = { maxRequests: 100_000, maxBytes: 256_000_000 } as const;

/** The HTTP status an Anthropic error type stands for, so batch errors follow the online retry rule. */
const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** Anthropic Message Batches (`/v1/messages/batches`) through `client.messages.batches`. */
export class AnthropicBatchBackend implements BatchBackend {
  readonly provider = 'anthropic' as const;
  readonly maxRequests = ANTHROPIC_BATCH_LIMITS.maxRequests;
  readonly maxBytes = ANTHROPIC_BATCH_LIMITS.maxBytes;

  constructor(private readonly sdk: () => Promise<Anthropic>) {}

  entryFor(customId: string, request: CompletionRequest, model: string): BatchEntry {
    const json = Buffer.from(
      JSON.stringify({ custom_id: customId, params: toAnthropicBody(request, model) }),
    );
    // The create body is `{"requests":[…]}`: each entry costs its JSON and a comma.
    return { customId, json, bytes: json.length + 1 };
  }

  /** The create body as a Blob of the entries' JSON: `batches.create` would hold it as one JS string and copies. */
  async create(entries: readonly BatchEntry[]): Promise<string> {
    const parts: Array<string | Buffer<ArrayBuffer>> = ['{"requests":['];
    for (const [index, entry] of entries.entries()) parts.push(index > 0 ? ',' : '', entry.json);
    parts.push(']}');
    const client = await this.sdk();
    const batch = await client.post<Anthropic.Messages.MessageBatch>('/v1/messages/batches', {
      body: new Blob(parts, { type: 'application/json' }),
      headers: { 'content-type': 'application/json' },
    });
    return batch.id;
  }

  /**
   * Anthropic batches carry no metadata: a lost one is the newest not named by a state file, created
   * after the create call started (less skew), with as many requests.
   */
  async findOrphan(hints: OrphanHints): Promise<string | undefined> {
    const client = await this.sdk();
    for await (const batch of client.messages.batches.list({ limit: 100 })) {
      const created = Date.parse(batch.created_at);
      if (created < hints.since - CLOCK_SKEW_MS) return undefined;
      if (hints.known.has(batch.id)) continue;
      const counts = batch.request_counts;
      const total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired;
      if (total === hints.requestCount) return batch.id;
    }
    return undefined;
  }

  async progress(batchId: string): Promise<BatchProgress> {
    const batch = await (await this.sdk()).messages.batches.retrieve(batchId);
    return batch.processing_status === 'ended'
      ? { state: 'ended', providerStatus: 'ended' }
      : { state: 'running', providerStatus: batch.processing_status };
  }

  async results(batchId: string, model: string): Promise<Map<string, EntryOutcome>> {
    const out = new Map<string, EntryOutcome>();
    const stream = await (await this.sdk()).messages.batches.results(batchId);
    for await (const line of stream) out.set(line.custom_id, outcomeOf(line.result, model));
    return out;
  }

  async cancel(batchId: string): Promise<void> {
    await (await this.sdk()).messages.batches.cancel(batchId);
  }
}

function outcomeOf(result: Anthropic.Messages.MessageBatchResult, model: string): EntryOutcome {
  switch (result.type) {
    case 'succeeded':
      return answeredOutcome(() => answerFromAnthropicMessage(result.message, model));
    case 'errored': {
      const type = result.error?.error?.type ?? 'api_error';
      const message = result.error?.error?.message ?? type;
      return { kind: 'errored', failure: failureFromStatus(STATUS_OF_ERROR_TYPE[type] ?? 500, message) };
    }
    case 'expired':
      return { kind: 'expired' };
    case 'canceled':
      return { kind: 'canceled' };
  }
}
