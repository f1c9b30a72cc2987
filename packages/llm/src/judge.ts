/**
 * The one judge value every stage and the plan take. Stages ask `judge.kind` and `judge.capabilities`,
 * never the id: this module is the only place that decides by a spec string.
 */
import type { LlmClient } from './completion-types';
import { type CreateLlmClientOptions, createLlmClient } from './create-llm-client';
import { parseJudgeSpec } from './parse-judge-spec';

/** `offline`: the deterministic lexical judge (no model, no tokens); `model`: a provider (live or recording); `replay`: answers from a store. */
export type JudgeKind = 'offline' | 'model' | 'replay';

export interface JudgeCapabilities {
  /** Reads slide images (image-mode and sparse-deck requests are sent only to a judge that does). */
  readsImages: boolean;
  /** Can answer through a provider batch API (`--batch`). */
  batch: boolean;
  /** The provider caches long shared prompt prefixes (the plan prices cache reads). */
  promptCache: boolean;
}

/** What a judge is, without a client: enough to plan (no key, no store read). */
export interface JudgeDescription {
  id: string;
  kind: JudgeKind;
  capabilities: JudgeCapabilities;
}

export type Judge =
  | (JudgeDescription & { kind: 'offline'; client: null })
  | (JudgeDescription & { kind: 'model' | 'replay'; client: LlmClient });

const OFFLINE_CAPABILITIES: JudgeCapabilities = { readsImages: false, batch: false, promptCache: false };

/** What the judge of `spec` is and can do, without building it; `overrides` narrows a model's capabilities. */
export function describeJudge(spec: string, overrides: Partial<JudgeCapabilities> = {}): JudgeDescription {
  const parsed = parseJudgeSpec(spec);
  if (parsed.kind === 'lexical')
    return { id: parsed.spec, kind: 'offline', capabilities: OFFLINE_CAPABILITIES };
  const provider = parsed.kind === 'anthropic' || parsed.kind === 'openai';
  const capabilities: JudgeCapabilities = {
    readsImages: true,
    batch: provider,
    promptCache: provider,
    ...overrides,
  };
  return { id: parsed.spec, kind: parsed.kind === 'replay' ? 'replay' : 'model', capabilities };
}

/** Builds the judge of `spec`: the offline judge, or a model/replay judge with its client (ConfigError for a missing key). */
export function createJudge(
  spec: string,
  options: CreateLlmClientOptions & { capabilities?: Partial<JudgeCapabilities> } = {},
): Judge {
  const { capabilities, ...clientOptions } = options;
  const description = describeJudge(spec, capabilities);
  if (description.kind === 'offline') return { ...description, kind: 'offline', client: null };
  return { ...description, kind: description.kind, client: createLlmClient(spec, clientOptions) };
}

/** A model judge around a client a caller holds (a library user's, a scripted one in tests). */
export function judgeFromClient(
  id: string,
  client: LlmClient,
  capabilities: Partial<JudgeCapabilities> = {},
): Judge {
  return {
    id,
    kind: 'model',
    client,
    capabilities: { readsImages: true, batch: false, promptCache: false, ...capabilities },
  };
}

/** The offline judge value. */
export const offlineJudge: Judge = {
  id: 'lexical',
  kind: 'offline',
  capabilities: OFFLINE_CAPABILITIES,
  client: null,
};
