import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, UsageError } from '@xsb/core';
import { parseJudgeSpec } from '@xsb/llm';
import type { BenchJudge } from '../schemas/bench-run';

/**
 * The bench's judge, checked before any work. Spec 002 pins every LLM call of a bench run to a
 * replay store, so a bench judge is `lexical` (offline), `replay:<store>` (answers from the store; a
 * miss fails the row) or `record:<store>` (collects the real prompts in `<store>.pending.jsonl` and
 * fails the row). A provider judge (`anthropic:`, `openai:`) is refused: record with it elsewhere
 * into a store, then replay it here.
 */
export function benchJudgeInfo(spec: string): BenchJudge {
  const parsed = parseJudgeSpec(spec);
  if (parsed.kind === 'lexical')
    return {
      id: 'lexical',
      offline: true,
      replay_store: null,
      mode: 'offline',
      model_label: null,
      filled_by: null,
    };
  if (parsed.kind === 'anthropic' || parsed.kind === 'openai')
    throw new UsageError(
      `a bench run answers every LLM call from a replay store (spec 002), so judge ${spec} is refused: collect the prompts with the judge record:STORE, write their completions from ${spec} into STORE, then run with replay:STORE`,
    );
  const store = parsed.store!;
  if (parsed.kind === 'replay' && !existsSync(store))
    throw new ConfigError(
      `replay store ${store} does not exist (record it first with the judge record:${store})`,
      { code: 'missing_file', remedy: { step: 'record-prompts', store } },
    );
  return {
    id: parsed.spec,
    offline: false,
    replay_store: store,
    mode: parsed.kind,
    model_label: storeModelLabel(store),
    filled_by: null,
  };
}

/** The one model label of a store (its first line's), or null for an empty or absent store. */
function storeModelLabel(store: string): string | null {
  if (!existsSync(store)) return null;
  for (const line of readFileSync(store, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const model = (JSON.parse(line) as { model?: unknown }).model;
      return typeof model === 'string' ? model : null;
    } catch {
      throw new ConfigError(
        `${store}: line is not valid JSON; a replay store is JSONL {key, model, completion}`,
      );
    }
  }
  return null;
}
