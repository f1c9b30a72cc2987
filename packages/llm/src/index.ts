export {
  type BatchEvent,
  BatchingClient,
  type BatchOptions,
  DEFAULT_MAX_BATCH_BYTES,
} from './batching-client';
export {
  batchOptionsForJudge,
  clientOptionsFor,
  clientSettingsFromConfig,
  runLedgerFile,
} from './client-settings';
export { completeJson, extractJson, StructuredAnswerError } from './complete-json';
export type {
  ChatMessage,
  CompletionRequest,
  CompletionResult,
  ContentPart,
  LlmClient,
  TokenUsage,
} from './completion-types';
export { createTokenCounter, type TokenCounter } from './count-request-tokens';
export {
  type CreateLlmClientOptions,
  createLlmClient,
  preferredConcurrencyFor,
  providerBaseUrl,
  providerLimitsFor,
} from './create-llm-client';
export { DiskCache } from './disk-cache';
export { estimateRequestTokens, estimateTokens } from './estimate-request-tokens';
export {
  fillLabelFor,
  fillReplayStore,
  ReplayStoreAppender,
  readPendingPrompts,
  replayStoreKeys,
  requestFromPending,
} from './fill-replay-store';
export {
  createJudge,
  describeJudge,
  type Judge,
  type JudgeCapabilities,
  type JudgeDescription,
  type JudgeKind,
  judgeFromClient,
  offlineJudge,
} from './judge';
export { isOfflineJudge, type JudgeSpec, parseJudgeSpec } from './parse-judge-spec';
export {
  BATCH_PRICE_FACTOR,
  costOfUsage,
  DEFAULT_PRICES,
  DEFAULT_PRICES_AS_OF,
  priceFor,
} from './price-table';
export { repeatClient } from './repeat-client';
export { pendingFileFor, replayStoreModelLabel } from './replay-client';
export { CACHE_FORMAT_VERSION, cacheKeyFor, replayKeyFor } from './request-key';
export { summarizeUsage, summarizeUsageLedger } from './usage-summary';
