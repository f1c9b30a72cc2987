import { existsSync } from 'node:fs';
import {
  ConfigError,
  describeError,
  mapWithConcurrency,
  type ProgressReporter,
  silentProgress,
  UsageError,
  validateRecord,
} from '@xsb/core';
import type { ChatMessage, CompletionRequest, ContentPart, LlmClient } from './completion-types';
import { parseJudgeSpec } from './parse-judge-spec';
import { LineAppender, pendingFileFor, readLines, replayStoreModelLabel } from './replay-client';
import { replayKeyFor } from './request-key';
import {
  type ReplayPendingLine,
  replayPendingLineSchema,
  replayStoreLineSchema,
} from './schemas/replay-store';

/** A filled store's model label: the provider judge's spec, so spec 002's "one model per store" is checked against it. */
export function fillLabelFor(judgeSpec: string): string {
  const spec = parseJudgeSpec(judgeSpec);
  if (spec.kind !== 'anthropic' && spec.kind !== 'openai')
    throw new UsageError(
      `a store is filled by a model: the judge must be anthropic:<model> or openai:<model>, got "${judgeSpec}"`,
    );
  return spec.spec;
}

/** Appends `{key, model, completion}` lines under one label; a store answering as another is a ConfigError. */
export class ReplayStoreAppender {
  private readonly lines: LineAppender;

  constructor(
    readonly store: string,
    readonly label: string,
  ) {
    const current = replayStoreModelLabel(store);
    if (current !== undefined && current !== label)
      throw new ConfigError(
        `${store}: the store answers as "${current}"; filling it with "${label}" would mix two models in one store (spec 002 pins a store to one fixed model): use another store`,
      );
    this.lines = new LineAppender(store);
  }

  append(key: string, completion: string): Promise<void> {
    const line = { key, model: this.label, completion };
    return this.lines.append(validateRecord(replayStoreLineSchema, line, { file: this.store }));
  }
}

/** The keys a store already answers (absent store: none). */
export function replayStoreKeys(store: string): Set<string> {
  if (!existsSync(store)) return new Set();
  const lines = readLines(store, (value, line) =>
    validateRecord(replayStoreLineSchema, value, { file: store, line }),
  );
  return new Set(lines.map((line) => line.key));
}

/** The pending prompts of a store, one per key (the first line of a key wins, as record mode writes it once). */
export function readPendingPrompts(store: string): ReplayPendingLine[] {
  const file = pendingFileFor(store);
  if (!existsSync(file))
    throw new UsageError(`${file} does not exist: collect the prompts first with the judge record:${store}`, {
      code: 'missing_file',
      remedy: { step: 'record-prompts', store },
    });
  const byKey = new Map<string, ReplayPendingLine>();
  for (const line of readLines(file, (value, at) =>
    validateRecord(replayPendingLineSchema, value, { file, line: at }),
  ))
    if (!byKey.has(line.key)) byKey.set(line.key, line);
  return [...byKey.values()];
}

/**
 * The request a pending line was recorded from, or why it cannot be rebuilt (images and documents are
 * kept by hash only); the rebuilt request must hash to the recorded key (a hand-edited line does not).
 */
export function requestFromPending(line: ReplayPendingLine): CompletionRequest | { unusable: string } {
  const messages: ChatMessage[] = [];
  for (const [index, raw] of line.messages.entries()) {
    const message = raw as { role?: unknown; content?: unknown };
    if ((message.role !== 'user' && message.role !== 'assistant') || !Array.isArray(message.content))
      return { unusable: `message ${index + 1} is not {role, content: [...]}` };
    const parts: ContentPart[] = [];
    for (const part of message.content as Array<{ type?: unknown; text?: unknown }>) {
      if (part.type !== 'text' || typeof part.text !== 'string')
        return {
          unusable: `message ${index + 1} holds a ${String(part.type)} part, which a pending line keeps by hash only; answer it by running its stage with the filling judge`,
        };
      parts.push({ type: 'text', text: part.text });
    }
    messages.push({ role: message.role, content: parts });
  }
  const request: CompletionRequest = {
    system: line.system || undefined,
    messages,
    model: line.model,
    temperature: line.temperature,
    maxTokens: line.maxTokens,
    seed: line.seed,
    stop: line.stop?.length ? line.stop : undefined,
    responseSchema: line.responseSchema as CompletionRequest['responseSchema'],
    stage: line.stage,
  };
  const key = replayKeyFor(request);
  if (key !== line.key)
    return { unusable: `its prompt hashes to ${key}, not to its key (was the line edited?)` };
  return request;
}

export interface FillReplayStoreOptions {
  /** The replay store (`<store>.jsonl`); its pending file is `<store>.pending.jsonl`. */
  store: string;
  /** The judge that answers: a provider client, online or a `BatchingClient`. */
  client: LlmClient;
  /** The store's model label (default: the client's judge id, see {@link fillLabelFor}). */
  label?: string;
  /** Calls in flight (default 8; `client.preferredConcurrency` fills batches). */
  concurrency?: number;
  progress?: ProgressReporter;
}

export interface FillReplayStoreResult {
  store: string;
  label: string;
  /** Distinct keys in the pending file. */
  pending: number;
  /** Pending keys the store already answered (nothing asked). */
  alreadyStored: number;
  filled: number;
  /** Prompts that got no answer, with the reason (a failed call, an unusable line). */
  failures: Array<{ key: string; stage: string | null; error: string }>;
}

/**
 * `xsb llm fill`: answers every pending prompt the store lacks and appends each answer as it arrives
 * (a killed fill keeps what it got; a rerun asks only what is still missing).
 */
export async function fillReplayStore(options: FillReplayStoreOptions): Promise<FillReplayStoreResult> {
  const label = options.label ?? fillLabelFor(options.client.judgeId);
  const appender = new ReplayStoreAppender(options.store, label);
  const pending = readPendingPrompts(options.store);
  const stored = replayStoreKeys(options.store);
  const todo = pending.filter((line) => !stored.has(line.key));
  const failures: FillReplayStoreResult['failures'] = [];
  const progress = options.progress ?? silentProgress;
  progress.start('fill', todo.length, { unit: 'prompts' });
  let filled = 0;
  await mapWithConcurrency(todo, options.concurrency ?? 8, async (line) => {
    const request = requestFromPending(line);
    try {
      if ('unusable' in request) throw new UsageError(request.unusable);
      const answer = await options.client.complete(request);
      await appender.append(line.key, answer.text);
      filled += 1;
    } catch (error) {
      failures.push({ key: line.key, stage: line.stage ?? null, error: describeError(error) });
    }
    progress.tick(1, line.stage ?? line.key);
  });
  progress.finish(`${filled} filled, ${failures.length} failed`);
  failures.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    store: options.store,
    label,
    pending: pending.length,
    alreadyStored: pending.length - todo.length,
    filled,
    failures,
  };
}
