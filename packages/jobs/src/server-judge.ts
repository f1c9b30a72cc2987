import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, type JudgeKind, portableNameSchema } from '@xsb/core';
import { createLlmClient, parseJudgeSpec } from '@xsb/llm';
import { fieldError } from './field-error';

export interface ServerJudge {
  /** The spec as the job records it (a replay store by its name in `<data>/replay/`). */
  spec: string;
  /** The spec the judge is built from on this machine (a replay store as an absolute path). */
  runtimeSpec: string;
  kind: JudgeKind;
}

/** The folder of the data folder from which the API serves replay stores: `<data>/replay/`. */
export const API_REPLAY_FOLDER = 'replay';

/**
 * The replay store a request names, by its file name in `<data>/replay/` (`replay/<name>` is taken too),
 * or undefined. Anything else — another folder, a path, a missing file, a folder — gets one answer, so
 * a caller learns nothing about the server's files from it.
 */
function replayStoreFile(dataDir: string, named: string): { name: string; file: string } | undefined {
  const name = named.startsWith(`${API_REPLAY_FOLDER}/`) ? named.slice(API_REPLAY_FOLDER.length + 1) : named;
  if (!portableNameSchema.safeParse(name).success) return undefined;
  const file = join(resolve(dataDir), API_REPLAY_FOLDER, name);
  try {
    return statSync(file).isFile() ? { name, file } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A judge requested over the network, checked against what the server has: `lexical`; a model judge
 * (`anthropic:` / `openai:`) using the server's own keys, never keys from the request; a `replay:`
 * store of the data folder's `replay/` folder, named by its file name. `record:` writes stores and is refused. Anything else is a 400 naming
 * the `judge` field. Call again on the worker: a replay path is resolved against its data folder.
 */
export function resolveServerJudge(
  spec: string | undefined,
  dataDir: string,
  env: Record<string, string | undefined>,
): ServerJudge {
  const requested = spec === undefined || spec.trim() === '' ? 'lexical' : spec.trim();
  let parsed: ReturnType<typeof parseJudgeSpec>;
  try {
    parsed = parseJudgeSpec(requested);
  } catch (error) {
    throw fieldError('judge', (error as Error).message);
  }
  switch (parsed.kind) {
    case 'lexical':
      return { spec: 'lexical', runtimeSpec: 'lexical', kind: 'offline' };
    case 'record':
      throw fieldError(
        'judge',
        'record: stores are written by local runs with a record: judge, not over the API',
      );
    case 'replay': {
      const store = replayStoreFile(dataDir, parsed.store);
      if (!store)
        throw fieldError(
          'judge',
          `replay stores are named by a file of the server's ${API_REPLAY_FOLDER}/ folder (replay:<name>.jsonl); this one is not available`,
        );
      return { spec: `replay:${store.name}`, runtimeSpec: `replay:${store.file}`, kind: 'replay' };
    }
    default:
      try {
        // Built only to check that the server has the provider's key; no call is made.
        createLlmClient(parsed.spec, { env });
      } catch (error) {
        if (error instanceof ConfigError)
          throw fieldError(
            'judge',
            `the server cannot use ${parsed.spec}: ${error.message}`,
            'judge_unavailable',
          );
        throw error;
      }
      return { spec: parsed.spec, runtimeSpec: parsed.spec, kind: 'model' };
  }
}
