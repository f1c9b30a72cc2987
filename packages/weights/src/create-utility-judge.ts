import type { Judge } from '@xsb/llm';
import { LexicalUtilityJudge } from './lexical-utility-judge';
import { LlmUtilityJudge } from './llm-utility-judge';
import type { UtilityJudge } from './utility-judge';

/** The utility judge of a judge: the lexical one for the offline judge, else one asking the judge's model. */
export function createUtilityJudge(judge: Judge): UtilityJudge {
  return judge.kind === 'offline' ? new LexicalUtilityJudge() : new LlmUtilityJudge(judge.client);
}
