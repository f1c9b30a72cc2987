/** The one request/answer shape of every judge call; adapters translate it to each provider's wire format. */

export interface TextPart {
  type: 'text';
  text: string;
  /** Ends a shared prompt prefix (Anthropic `cache_control`; OpenAI renders the prefix byte-stable). */
  cacheBreakpoint?: boolean;
}

export interface ImagePart {
  type: 'image';
  mediaType: 'image/png' | 'image/jpeg';
  /** Raw bytes; the cache key uses their sha256, never the bytes themselves. */
  data: Uint8Array;
  cacheBreakpoint?: boolean;
}

export interface DocumentPart {
  type: 'document';
  mediaType: 'application/pdf';
  data: Uint8Array;
  /** Shown to the model as the document title where the provider supports it. */
  title?: string;
  cacheBreakpoint?: boolean;
}

export type ContentPart = TextPart | ImagePart | DocumentPart;

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string | ContentPart[];
}

export interface ResponseJsonSchema {
  name: string;
  /** A JSON Schema object (e.g. from `z.toJSONSchema`). */
  schema: Record<string, unknown>;
}

export interface CompletionRequest {
  system?: string;
  messages: ChatMessage[];
  /** Overrides the model of the judge spec; normally left unset. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  /** Sent where the provider supports it (OpenAI); part of the cache key either way. */
  seed?: number;
  responseSchema?: ResponseJsonSchema;
  /** Pipeline stage for the usage ledger, e.g. `probes`, `weights`, `eval.answerability`. */
  stage?: string;
  /** Test–retest repeat index (`--repeats`): never sent; from 1 on it is part of the cache and replay keys. */
  repeat?: number;
}

export interface TokenUsage {
  /** Input tokens not served from the provider's prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface CompletionResult {
  text: string;
  usage: TokenUsage;
  /** The model id the server reported. */
  model: string;
  latencyMs: number;
  retries: number;
  fromCache: boolean;
  /** The judge spec string, recorded in artifacts (e.g. `anthropic:claude-sonnet-4-5`). */
  judgeId: string;
  /** `max_tokens`: the answer was cut off at `maxTokens`. Unset for replayed answers. */
  stopReason?: StopReason;
}

export type StopReason = 'end' | 'max_tokens' | 'stop_sequence' | 'other';

export interface CompleteOptions {
  signal?: AbortSignal;
}

export interface LlmClient {
  readonly judgeId: string;
  /** Calls the client wants in flight (a batching client needs many at once to fill batches); unset: no preference. */
  readonly preferredConcurrency?: number;
  complete(request: CompletionRequest, options?: CompleteOptions): Promise<CompletionResult>;
}
