import { type CreateLlmClientOptions, createLlmClient, isOfflineJudge } from '@xsb/llm';
import type { ProbeGenerator } from './generated-probe';
import { LexicalProbeGenerator } from './lexical-probe-generator';
import { LlmProbeGenerator } from './llm-probe-generator';

/** The generator for a judge spec: `lexical` offline, anything else a model client (ConfigError if unusable). */
export function createProbeGenerator(
  judgeSpec: string,
  options: CreateLlmClientOptions = {},
): ProbeGenerator {
  if (isOfflineJudge(judgeSpec)) return new LexicalProbeGenerator();
  return new LlmProbeGenerator(createLlmClient(judgeSpec, { stage: 'probes', ...options }));
}
