import type { Judge } from '@xsb/llm';
import type { ProbeGenerator } from './generated-probe';
import { LexicalProbeGenerator } from './lexical-probe-generator';
import { LlmProbeGenerator } from './llm-probe-generator';

/** The generator of a judge: the lexical generator for the offline judge, else one asking the judge's model. */
export function createProbeGenerator(judge: Judge): ProbeGenerator {
  return judge.kind === 'offline' ? new LexicalProbeGenerator() : new LlmProbeGenerator(judge.client);
}
