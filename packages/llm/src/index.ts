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
export { type CreateLlmClientOptions, createLlmClient, providerLimitsFor } from './create-llm-client';
export { type CacheStats, DiskCache } from './disk-cache';
export { isOfflineJudge, type JudgeSpec, type ProviderName, parseJudgeSpec } from './parse-judge-spec';
export { replayStoreModelLabel } from './replay-client';
export { CACHE_FORMAT_VERSION, cacheKeyFor, replayKeyFor } from './request-key';
export { DEFAULT_PROVIDER_LIMITS } from './retry-policy';
export {
  DEFAULT_PRICES,
  priceFor,
  summarizeUsage,
  summarizeUsageLedger,
  type UsageSummary,
  type UsageSummaryRow,
  type UsageTotals,
} from './usage-summary';
