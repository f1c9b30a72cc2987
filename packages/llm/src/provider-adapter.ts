import { classifyFailure, type Failure } from './classify-failure';
import type { CompletionRequest, StopReason, TokenUsage } from './completion-types';
import type { ProviderName } from './parse-judge-spec';

export interface ProviderAnswer {
  text: string;
  model: string;
  usage: TokenUsage;
  stopReason: StopReason;
}

/** One provider behind the common request shape: a single attempt, no retries (the caller owns those). */
export interface ProviderAdapter {
  readonly provider: ProviderName;
  /** The environment variable that holds the key, named in authentication errors. */
  readonly keyVariable: string;
  readonly baseUrl: string;
  /** The provider's batch API over the same SDK client. */
  readonly batch: BatchBackend;
  /** Loads the provider's SDK (once per process); awaited before an attempt's timeout starts. */
  ready(): Promise<unknown>;
  send(
    request: CompletionRequest,
    model: string,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ProviderAnswer>;
}

/** One request rendered for a batch, as UTF-8 JSON held off the JS heap until its batch is sent. */
export interface BatchEntry {
  customId: string;
  /** Anthropic `{custom_id, params}`; OpenAI `{custom_id, method, url, body}`. */
  json: Buffer<ArrayBuffer>;
  /** `json`'s length plus its separator in the upload. */
  bytes: number;
}

/** What the provider says about a batch. */
export type BatchProgress =
  | { state: 'running'; providerStatus: string }
  /** Ended (completed, expired or canceled): results of the entries that were processed can be read. */
  | { state: 'ended'; providerStatus: string }
  /** The batch as a whole was refused (OpenAI `failed`, e.g. a validation error): no results. */
  | { state: 'failed'; providerStatus: string; reason: string };

/** The result of one entry of an ended batch. */
export type EntryOutcome =
  | { kind: 'succeeded'; answer: ProviderAnswer }
  | { kind: 'errored'; failure: Failure }
  | { kind: 'expired' }
  | { kind: 'canceled' };

/** How far back a lost batch's `created_at` may lie before xsb's clock said it called create. */
export const CLOCK_SKEW_MS = 120_000;

/** What a lost create call may have left behind, to find it again. */
export interface OrphanHints {
  /** xsb's id of the submission (OpenAI: `metadata.xsb_batch`). */
  localId: string;
  /** Epoch ms before the create call was first made. */
  since: number;
  requestCount: number;
  /** OpenAI: the input file the batch would read. */
  inputFileId?: string;
  /** Batch ids already accounted for by state files: never adopted. */
  known: ReadonlySet<string>;
}

/** A provider's batch API through its SDK: every call is one attempt (the caller retries). */
export interface BatchBackend {
  readonly provider: ProviderName;
  /** The provider's limits per batch: requests and bytes. */
  readonly maxRequests: number;
  readonly maxBytes: number;
  /** Renders one request; throws a TypeError for a request the provider cannot take (as online). */
  entryFor(customId: string, request: CompletionRequest, model: string): BatchEntry;
  /** OpenAI: uploads the JSONL of the entries (`purpose: batch`) and returns the file id. */
  upload?(entries: readonly BatchEntry[], localId: string): Promise<string>;
  /** Creates the batch (from the entries, or the uploaded file) and returns its id. */
  create(entries: readonly BatchEntry[], localId: string, inputFileId?: string): Promise<string>;
  /** A batch the provider created although the create call failed or its answer was lost. */
  findOrphan(hints: OrphanHints): Promise<string | undefined>;
  progress(batchId: string): Promise<BatchProgress>;
  /** Every result the ended batch has, by custom_id (entries without a line are absent). */
  results(batchId: string, model: string): Promise<Map<string, EntryOutcome>>;
  cancel(batchId: string): Promise<void>;
}

/** An answered result, or a retryable `malformed_answer` for a body without content, as online. */
export function answeredOutcome(parse: () => ProviderAnswer): EntryOutcome {
  try {
    return { kind: 'succeeded', answer: parse() };
  } catch (error) {
    return { kind: 'errored', failure: classifyFailure(error, false) };
  }
}
