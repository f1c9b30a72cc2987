export type { BatchEvent, BatchOptions } from './batching-client';
export { batchOptionsForJudge, clientSettingsFromConfig, runLedgerFile } from './client-settings';
export { completeJson, extractJson } from './complete-json';
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
export { estimateTokens } from './estimate-request-tokens';
export {
  fillLabelFor,
  fillReplayStore,
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
export { parseJudgeSpec } from './parse-judge-spec';
export { costOfUsage, DEFAULT_PRICES_AS_OF, priceFor } from './price-table';
export { repeatClient } from './repeat-client';
export { replayStoreModelLabel } from './replay-client';
export { cacheKeyFor, replayKeyFor } from './request-key';
export { batchStateSchema } from './schemas/batch-state';
export { replayPendingLineSchema, replayStoreLineSchema } from './schemas/replay-store';
export { type UsageLedgerEntry, usageLedgerEntrySchema } from './schemas/usage-ledger-entry';
export { summarizeUsage, summarizeUsageLedger } from './usage-summary';
