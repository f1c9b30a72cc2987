import type Anthropic from '@anthropic-ai/sdk';
import { answerFromAnthropicMessage, toAnthropicBody } from './anthropic-wire';
import {
  answeredOutcome,
  type BatchBackend,
  type BatchEntry,
  type BatchProgress,
  type EntryOutcome,
  type OrphanHints,
} from './batch-backend';
import { failureFromStatus } from './classify-failure';
import type { CompletionRequest } from './completion-types';

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

/** How far back a lost batch's `created_at` may lie before xsb's clock said it called create. */
const CLOCK_SKEW_MS = 120_000;

/** Anthropic Message Batches (`/v1/messages/batches`) through `client.messages.batches`. */
export class AnthropicBatchBackend implements BatchBackend {
  readonly provider = 'anthropic' as const;
  readonly maxRequests = ANTHROPIC_BATCH_LIMITS.maxRequests;
  readonly maxBytes = ANTHROPIC_BATCH_LIMITS.maxBytes;

  constructor(private readonly client: Anthropic) {}

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
    const batch = await this.client.post<Anthropic.Messages.MessageBatch>('/v1/messages/batches', {
      body: new Blob(parts, { type: 'application/json' }),
      headers: { 'content-type': 'application/json' },
      maxRetries: 0,
    });
    return batch.id;
  }

  /**
   * Anthropic batches carry no metadata: a lost one is the newest not named by a state file, created
   * after the create call started (less skew), with as many requests.
   */
  async findOrphan(hints: OrphanHints): Promise<string | undefined> {
    for await (const batch of this.client.messages.batches.list({ limit: 100 }, { maxRetries: 0 })) {
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
    const batch = await this.client.messages.batches.retrieve(batchId, {}, { maxRetries: 0 });
    return batch.processing_status === 'ended'
      ? { state: 'ended', providerStatus: 'ended' }
      : { state: 'running', providerStatus: batch.processing_status };
  }

  async results(batchId: string, model: string): Promise<Map<string, EntryOutcome>> {
    const out = new Map<string, EntryOutcome>();
    const stream = await this.client.messages.batches.results(batchId, {}, { maxRetries: 0 });
    for await (const line of stream) out.set(line.custom_id, outcomeOf(line.result, model));
    return out;
  }

  async cancel(batchId: string): Promise<void> {
    await this.client.messages.batches.cancel(batchId, {}, { maxRetries: 0 });
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
