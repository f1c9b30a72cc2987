import { ConfigError } from '@xsb/core';

type JudgeSpec =
  | { kind: 'lexical'; spec: string }
  | { kind: 'anthropic'; spec: string; model: string }
  | { kind: 'openai'; spec: string; model: string }
  | { kind: 'replay'; spec: string; store: string }
  | { kind: 'record'; spec: string; store: string };

export type ProviderName = 'anthropic' | 'openai';

const FORMS =
  '`lexical`, `anthropic:<model>`, `openai:<model>`, `replay:<store.jsonl>` or `record:<store.jsonl>`';

/** Reads a judge spec string; anything else is a ConfigError listing the accepted forms. */
export function parseJudgeSpec(spec: string): JudgeSpec {
  const trimmed = spec.trim();
  if (trimmed === 'lexical') return { kind: 'lexical', spec: trimmed };
  const colon = trimmed.indexOf(':');
  const prefix = colon === -1 ? '' : trimmed.slice(0, colon);
  const rest = colon === -1 ? '' : trimmed.slice(colon + 1).trim();
  if (prefix === 'anthropic' || prefix === 'openai') {
    if (rest === '')
      throw new ConfigError(`judge "${spec}": the model is missing (expected ${prefix}:<model>)`);
    return { kind: prefix, spec: trimmed, model: rest };
  }
  if (prefix === 'replay' || prefix === 'record') {
    if (rest === '')
      throw new ConfigError(`judge "${spec}": the store file is missing (expected ${prefix}:<store.jsonl>)`);
    return { kind: prefix, spec: trimmed, store: rest };
  }
  throw new ConfigError(`unknown judge "${spec}": expected ${FORMS}`);
}
