import { type CreateLlmClientOptions, createLlmClient, isOfflineJudge } from '@xsb/llm';
import { LexicalUtilityJudge } from './lexical-utility-judge';
import { LlmUtilityJudge } from './llm-utility-judge';
import type { UtilityJudge } from './utility-judge';

/** The judge for a judge spec: `lexical` offline, anything else a model client (ConfigError if unusable). */
export function createUtilityJudge(judgeSpec: string, options: CreateLlmClientOptions = {}): UtilityJudge {
  if (isOfflineJudge(judgeSpec)) return new LexicalUtilityJudge();
  return new LlmUtilityJudge(createLlmClient(judgeSpec, { stage: 'weights', ...options }));
}
