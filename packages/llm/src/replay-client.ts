import { existsSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, InputError, validateRecord } from '@xsb/core';
import type { CompletionRequest, CompletionResult, LlmClient } from './completion-types';
import type { ReplayStoreAppender } from './fill-replay-store';
import { canonicalMessages, renderPromptText, replayKeyFor } from './request-key';
import {
  type ReplayPendingLine,
  type ReplayStoreLine,
  replayPendingLineSchema,
  replayStoreLineSchema,
} from './schemas/replay-store';
import type { UsageLedger } from './usage-ledger';

/** Appends JSON lines to a file in call order, one whole line per `appendFile` (O_APPEND). */
export class LineAppender {
  private tail: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  append(value: unknown): Promise<void> {
    const next = this.tail.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      await appendFile(this.file, `${JSON.stringify(value)}\n`);
    });
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** `<store>.pending.jsonl` beside `<store>.jsonl`: the prompts record mode collected. */
export function pendingFileFor(store: string): string {
  return `${store.replace(/\.jsonl$/, '')}.pending.jsonl`;
}

interface LoadedStore {
  model: string | undefined;
  completions: Map<string, string>;
  /** mtime and size when read: record mode rereads the store only after it changed. */
  version: string;
}

function storeVersion(store: string): string {
  try {
    const info = statSync(store);
    return `${info.mtimeMs}:${info.size}`;
  } catch {
    return 'absent';
  }
}

/** The non-blank lines of a JSONL file, each parsed by `parse`; invalid JSON is a ConfigError naming file:line. */
export function readLines<T>(file: string, parse: (value: unknown, line: number) => T): T[] {
  const rows: T[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new ConfigError(`${file}:${index + 1}: invalid JSON (${(error as Error).message})`);
      }
      rows.push(parse(value, index + 1));
    });
  return rows;
}

/** Reads a store; one model label per store (spec 002), later lines of a key win. */
function loadStore(store: string): LoadedStore {
  const completions = new Map<string, string>();
  let model: string | undefined;
  const version = storeVersion(store);
  if (version === 'absent') return { model, completions, version };
  for (const line of readLines<ReplayStoreLine>(store, (value, line) =>
    validateRecord(replayStoreLineSchema, value, { file: store, line }),
  )) {
    if (model !== undefined && line.model !== model)
      throw new ConfigError(
        `${store}: mixes model labels "${model}" and "${line.model}"; a replay store answers as one fixed model`,
      );
    model = line.model;
    completions.set(line.key, line.completion);
  }
  return { model, completions, version };
}

/** The one model label a replay store answers as (undefined when absent or empty; mixed labels: ConfigError). */
export function replayStoreModelLabel(store: string): string | undefined {
  return loadStore(store).model;
}

export interface ReplayClientOptions {
  judgeId: string;
  store: string;
  /** `record`: a miss appends the prompt to the pending file; `replay`: a miss fails loudly. */
  mode: 'replay' | 'record';
  ledger?: UsageLedger;
  stage: string;
  /** Record mode only: a prompt the store lacks is asked of `client` and appended under the store's one label. */
  fill?: { client: LlmClient; appender: ReplayStoreAppender };
}

/**
 * Answers from a replay store (spec 002). Record mode answers what the store holds and appends any
 * other prompt once to `<store>.pending.jsonl`, failing the call.
 */
export class ReplayClient implements LlmClient {
  readonly judgeId: string;
  private loaded: LoadedStore | undefined;
  private pendingKeys: Set<string> | undefined;
  private pending: LineAppender | undefined;
  private readonly filling = new Map<string, Promise<string>>();

  constructor(private readonly options: ReplayClientOptions) {
    this.judgeId = options.judgeId;
    if (options.mode === 'replay') {
      if (!existsSync(options.store))
        throw new ConfigError(
          `${options.store}: replay store not found (collect its prompts with the judge record:${options.store} first)`,
          { code: 'missing_file', remedy: { step: 'record-prompts', store: options.store } },
        );
      this.loaded = loadStore(options.store);
    }
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const started = performance.now();
    // Replay reads its store once; record rereads it when it changed, so completions written
    // while a recording run is going are answered from then on.
    if (
      !this.loaded ||
      (this.options.mode === 'record' && storeVersion(this.options.store) !== this.loaded.version)
    )
      this.loaded = loadStore(this.options.store);
    const store = this.loaded;
    const key = replayKeyFor(request);
    const completion = store.completions.get(key);
    const stage = request.stage ?? this.options.stage;
    if (completion !== undefined) return this.answer(completion, store.model ?? 'replay', stage, started);
    const { store: storeFile } = this.options;
    if (this.options.mode === 'record' && this.options.fill)
      return this.fillMiss(request, key, stage, started);
    if (this.options.mode === 'replay') {
      await this.ledgerLine(stage, store.model ?? 'replay', performance.now() - started, 'replay_miss');
      throw new InputError(
        `replay store has no completion for key ${key}${(request.repeat ?? 0) >= 1 ? ` (test–retest repeat ${request.repeat}: a store holds one answer per prompt and repeat, so each repeat needs the model's own answer)` : ''} (record it with the judge record:${storeFile}, then add {"key", "model", "completion"} to the store)`,
        {
          file: storeFile,
          code: 'replay_miss',
          details: { key, ...(request.repeat ? { repeat: request.repeat } : {}) },
        },
      );
    }
    const pendingFile = await this.appendPending(key, request);
    await this.ledgerLine(stage, request.model ?? 'record', performance.now() - started, 'recorded');
    throw new InputError(
      `prompt recorded as key ${key} in ${pendingFile}; write its completion into the store and run again with the judge replay:${storeFile}`,
      { file: storeFile, code: 'recorded', details: { key, pendingFile } },
    );
  }

  /** Asks the filling judge, stores its answer, and answers as the store would from now on. */
  private async fillMiss(
    request: CompletionRequest,
    key: string,
    stage: string,
    started: number,
  ): Promise<CompletionResult> {
    const { client, appender } = this.options.fill!;
    // Two calls of one prompt at once ask the judge once and store one line.
    let filling = this.filling.get(key);
    if (!filling) {
      filling = (async () => {
        const answer = await client.complete({ ...request, stage });
        await appender.append(key, answer.text);
        const store = this.loaded!;
        store.completions.set(key, answer.text);
        store.model ??= appender.label;
        // Our own line changed the file: no need to reread it for that (a large store would be reread per call).
        store.version = storeVersion(this.options.store);
        return answer.text;
      })().finally(() => this.filling.delete(key));
      this.filling.set(key, filling);
    }
    const text = await filling;
    return this.answer(text, this.loaded?.model ?? appender.label, stage, started);
  }

  private async answer(
    text: string,
    model: string,
    stage: string,
    started: number,
  ): Promise<CompletionResult> {
    const latencyMs = performance.now() - started;
    await this.ledgerLine(stage, model, latencyMs);
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    return { text, usage, model, latencyMs, retries: 0, fromCache: false, judgeId: this.judgeId };
  }

  private async appendPending(key: string, request: CompletionRequest): Promise<string> {
    const file = pendingFileFor(this.options.store);
    if (!this.pendingKeys) {
      this.pendingKeys = new Set(
        existsSync(file)
          ? readLines(
              file,
              (value, line) => validateRecord(replayPendingLineSchema, value, { file, line }).key,
            )
          : [],
      );
    }
    if (this.pendingKeys.has(key)) return file;
    this.pendingKeys.add(key);
    const line: ReplayPendingLine = {
      key,
      model: request.model,
      system: request.system ?? '',
      prompt: renderPromptText(request.messages),
      messages: canonicalMessages(request.messages),
      stage: request.stage ?? (this.options.stage || undefined),
      responseSchema: request.responseSchema,
      temperature: request.temperature,
      maxTokens: request.maxTokens,
      repeat: request.repeat || undefined,
      // What else the stage asked with, so `xsb llm fill` sends the same request.
      seed: request.seed,
      stop: request.stop?.length ? request.stop : undefined,
    };
    this.pending ??= new LineAppender(file);
    await this.pending.append(validateRecord(replayPendingLineSchema, line, { file }));
    return file;
  }

  private async ledgerLine(stage: string, model: string, latencyMs: number, error?: string) {
    await this.options.ledger?.appendCall({
      stage,
      judge: this.judgeId,
      provider: this.options.mode,
      model,
      latencyMs,
      retries: 0,
      cacheHit: false,
      ...(error !== undefined ? { error } : {}),
    });
  }
}
