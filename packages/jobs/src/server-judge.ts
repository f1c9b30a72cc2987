import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError, type JudgeKind } from '@xsb/core';
import { createLlmClient, parseJudgeSpec } from '@xsb/llm';
import { fieldError } from './field-error';

export interface ServerJudge {
  /** The spec as the job records it (a replay store relative to the data folder). */
  spec: string;
  /** The spec the judge is built from on this machine (a replay store as an absolute path). */
  runtimeSpec: string;
  kind: JudgeKind;
}

function insideDataDir(dataDir: string, file: string): string | undefined {
  const root = resolve(dataDir);
  const path = resolve(root, file);
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/**
 * A judge requested over the network, checked against what the server has: `lexical`; a model judge
 * (`anthropic:` / `openai:`) using the server's own keys, never keys from the request; a `replay:`
 * store inside the data folder. `record:` writes stores and is refused. Anything else is a 400 naming
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
        'record: stores are written by local runs (xsb … --judge record:…), not over the API',
      );
    case 'replay': {
      const rel = insideDataDir(dataDir, parsed.store);
      if (rel === undefined)
        throw fieldError(
          'judge',
          `the replay store ${JSON.stringify(parsed.store)} is not inside the server's data folder`,
        );
      const file = resolve(dataDir, rel);
      if (!existsSync(file))
        throw fieldError('judge', `no replay store ${JSON.stringify(rel)} in the server's data folder`);
      return { spec: `replay:${rel}`, runtimeSpec: `replay:${file}`, kind: 'replay' };
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
