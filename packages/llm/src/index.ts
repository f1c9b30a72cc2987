export {
  type BatchEvent,
  BatchingClient,
  type BatchOptions,
  customIdFor,
  DEFAULT_MAX_BATCH_BYTES,
} from './batching-client';
export {
  type BatchRequest,
  batchOptionsForJudge,
  clientOptionsFor,
  clientSettingsFromConfig,
  type ModelClientSettings,
  runLedgerFile,
} from './client-settings';
export { type CompleteJsonOptions, completeJson, extractJson, StructuredAnswerError } from './complete-json';
export type {
  ChatMessage,
  CompleteOptions,
  CompletionRequest,
  CompletionResult,
  ContentPart,
  DocumentPart,
  ImagePart,
  LlmClient,
  ResponseJsonSchema,
  StopReason,
  TextPart,
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
export { type CacheStats, DiskCache } from './disk-cache';
export {
  DEFAULT_ANSWER_BUDGET,
  estimateRequestTokens,
  estimateTokens,
  type TokenEstimate,
} from './estimate-request-tokens';
export {
  type FillReplayStoreOptions,
  type FillReplayStoreResult,
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
export { isOfflineJudge, type JudgeSpec, type ProviderName, parseJudgeSpec } from './parse-judge-spec';
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
export { DEFAULT_PROVIDER_LIMITS } from './retry-policy';
export {
  summarizeUsage,
  summarizeUsageLedger,
  type UsageSummary,
  type UsageSummaryRow,
  type UsageTotals,
} from './usage-summary';
