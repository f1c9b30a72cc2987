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
  TextPart,
  TokenUsage,
} from './completion-types';
