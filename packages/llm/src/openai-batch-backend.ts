import type OpenAI from 'openai';
import { toFile } from 'openai';
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
import { answerFromChatCompletion, toOpenAiBody } from './openai-wire';

/** OpenAI Batch limits: 50,000 requests and 200 MB per input file. */
export const OPENAI_BATCH_LIMITS = { maxRequests: 50_000, maxBytes: 200_000_000 } as const;

const ENDPOINT = '/v1/chat/completions';
const CLOCK_SKEW_MS = 120_000;

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
    private readonly client: OpenAI,
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
    const file = await this.client.files.create(
      {
        file: await toFile(jsonl, `xsb-${localId}.jsonl`, { type: 'application/jsonl' }),
        purpose: 'batch',
      },
      { maxRetries: 0 },
    );
    return file.id;
  }

  async create(_entries: readonly BatchEntry[], localId: string, inputFileId?: string): Promise<string> {
    if (!inputFileId) throw new TypeError('openai batch: create needs the uploaded input file');
    const batch = await this.client.batches.create(
      {
        input_file_id: inputFileId,
        endpoint: ENDPOINT,
        completion_window: '24h',
        metadata: { xsb_batch: localId },
      },
      { maxRetries: 0 },
    );
    return batch.id;
  }

  /** A lost batch names xsb's id in its metadata, or reads the input file xsb uploaded for it. */
  async findOrphan(hints: OrphanHints): Promise<string | undefined> {
    for await (const batch of this.client.batches.list({ limit: 100 }, { maxRetries: 0 })) {
      if (batch.created_at * 1000 < hints.since - CLOCK_SKEW_MS) return undefined;
      if (hints.known.has(batch.id)) continue;
      const tagged = batch.metadata?.xsb_batch === hints.localId;
      if (tagged || (hints.inputFileId !== undefined && batch.input_file_id === hints.inputFileId))
        return batch.id;
    }
    return undefined;
  }

  async progress(batchId: string): Promise<BatchProgress> {
    const batch = await this.client.batches.retrieve(batchId, { maxRetries: 0 });
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
    const batch = await this.client.batches.retrieve(batchId, { maxRetries: 0 });
    const out = new Map<string, EntryOutcome>();
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const text = await (await this.client.files.content(fileId, { maxRetries: 0 })).text();
      for (const raw of text.split('\n')) {
        if (raw.trim() === '') continue;
        const line = JSON.parse(raw) as OutputLine;
        if (typeof line.custom_id === 'string') out.set(line.custom_id, outcomeOf(line, model));
      }
    }
    return out;
  }

  async cancel(batchId: string): Promise<void> {
    await this.client.batches.cancel(batchId, { maxRetries: 0 });
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
