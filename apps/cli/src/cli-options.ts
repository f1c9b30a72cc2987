import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  parseShard,
  plural,
  RunLayout,
  type Shard,
  UsageError,
  type XsbConfig,
  type XsbConfigInput,
} from '@xsb/core';
import {
  type BatchEvent,
  type BatchOptions,
  batchOptionsForJudge,
  type CreateLlmClientOptions,
  clientSettingsFromConfig,
  preferredConcurrencyFor,
  runLedgerFile,
} from '@xsb/llm';
import { DEFAULT_TAU_A } from '@xsb/metrics';
import { parsePageRange, resolveMineruCacheDir } from '@xsb/sources';
import type { CliContext } from './cli-context';

/** Commander argument parser for repeatable, comma-separated list flags (`--case a,b --case c`). */
export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

/** An integer flag, at least `min`; bad input is a usage error (exit 2). */
export function integerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = Number.NEGATIVE_INFINITY,
): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    const wanted = Number.isFinite(min) ? `an integer >= ${min}` : 'an integer';
    throw new UsageError(`${name} must be ${wanted}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function portFlag(value: string | undefined, fallback: number): number {
  const port = integerFlag('--port', value, fallback, 0);
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  return port;
}

/** An integer flag with no default: undefined when not given (the caller keeps a recorded value). */
export function optionalIntegerFlag(
  name: string,
  value: string | undefined,
  min?: number,
): number | undefined {
  return value === undefined ? undefined : integerFlag(name, value, 0, min);
}

export const PAGES_OPTION_HELP =
  'PDF pages kept, e.g. 1-40 or 1-5,9 (default: what `xsb sources` kept, else all); other sources are read whole';

/** `--pages`: checked now (0, 5-2 and the like are usage errors before any work), canonical spelling. */
export function pagesFlag(value: string | undefined): string | undefined {
  return value === undefined ? undefined : parsePageRange(value, '--pages').spec;
}

/** A number flag within [min, max]; bad input is a usage error (exit 2). */
export function numberFlag(
  flag: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || number > max) {
    throw new UsageError(`${flag} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A comma-separated list flag whose entries must come from `allowed`. */
export function choiceList<T extends string>(
  flag: string,
  values: string[] | undefined,
  allowed: readonly T[],
): T[] | undefined {
  if (!values || values.length === 0) return undefined;
  const unknown = values.filter((value) => !allowed.includes(value as T));
  if (unknown.length > 0)
    throw new UsageError(
      `${flag}: unknown ${unknown.map((value) => JSON.stringify(value)).join(', ')} (known: ${allowed.join(', ')})`,
    );
  return values as T[];
}

export const parseTauA = (value: string | undefined): number =>
  numberFlag('--tau-a', value, DEFAULT_TAU_A, 0, 1);

/** The config overrides of `--data`, `--run` and `--judge`; unset flags override nothing. */
export function configFlags(flags: { data?: string; run?: string; judge?: string }): Partial<XsbConfigInput> {
  return {
    ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
    ...(flags.run !== undefined ? { run: flags.run } : {}),
    ...(flags.judge !== undefined ? { judge: flags.judge } : {}),
  };
}

/** Model-client options of the configuration, with the run's usage ledger. */
export function llmClientOptions(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
  batch?: BatchOptions,
): CreateLlmClientOptions {
  return {
    ...clientSettingsFromConfig(config, context.io.cwd, env, batch),
    ledgerFile: runLedgerFile(config, context.io.cwd),
  };
}

/** Model-client options of the configuration for a stage that keeps its own usage ledger, or none. */
export function modelClientOptions(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
  batch?: BatchOptions,
) {
  return clientSettingsFromConfig(config, context.io.cwd, env, batch);
}

export interface BatchFlags {
  batch?: boolean;
  batchFallback?: string;
}

/** Declares `--batch` and `--batch-fallback`; `where` names the state folder a restart needs. */
export function addBatchFlags<T extends { option(flags: string, description: string): T }>(
  command: T,
  where: string,
): T {
  return command
    .option(
      '--batch',
      `answer the judge's calls through the provider's batch API (Anthropic Message Batches, OpenAI Batch): half the online price, answers within minutes to 24 h; state in ${where}, so a killed command run again resumes its batches and pays no request twice. Model judges only`,
    )
    .option(
      '--batch-fallback <how>',
      'what becomes of a request a batch did not answer (expired, canceled, a retryable error): resubmit (default, in the next batch) or online (sent at the online price)',
    );
}

/** `BatchOptions` for `--batch` (undefined without it), progress lines on stderr. */
export function batchOptionsFor(
  context: CliContext,
  flags: BatchFlags,
  config: XsbConfig,
  judge: string,
  stateDir: string,
): BatchOptions | undefined {
  if (!flags.batch) {
    if (flags.batchFallback !== undefined) throw new UsageError('--batch-fallback applies only with --batch');
    return undefined;
  }
  return batchOptionsForJudge(judge, {
    ...(flags.batchFallback !== undefined ? { fallback: flags.batchFallback } : {}),
    stateDir,
    settings: config.batch,
    onEvent: (event) => {
      const line = batchEventLine(event);
      if (line) context.warn(line);
    },
  });
}

/** A batch's progress as one stderr line; polls are not shown (a long batch polls for hours). */
function batchEventLine(event: BatchEvent): string | undefined {
  switch (event.type) {
    case 'submitted':
      return `batch ${event.batchId}: submitted ${plural(event.requests, 'request')}, ${(event.bytes / 1e6).toFixed(2)} MB (round ${event.round})`;
    case 'resumed':
      return `batch ${event.batchId}: resumed (${plural(event.requests, 'request')} submitted by an earlier process)`;
    case 'collected':
      return `batch ${event.batchId}: collected ${plural(event.succeeded, 'answer')}${event.missing > 0 ? `, ${event.missing} without an answer` : ''}`;
    case 'submit_failed':
      return `batch: ${plural(event.requests, 'request')} could not be submitted (${event.reason})`;
    case 'canceled':
      return `batch ${event.batchId}: canceled (${event.reason})`;
    case 'online':
      return `batch: ${event.customId} sent online (${event.reason})`;
    default:
      return undefined;
  }
}

/** With `--batch`, as many calls in flight as a batch holds, so one batch collects the whole stage. */
export function stageConcurrency(judge: string, options: CreateLlmClientOptions): number | undefined {
  return options.batch ? preferredConcurrencyFor(judge, options) : undefined;
}

/**
 * A judged stage's configuration, data layout and model-client options (`ledger`: the run's usage
 * ledger, else none), `--batch` state in `stateDir(layout, run)`.
 */
export function judgedStage(
  context: CliContext,
  flags: BatchFlags & { data?: string; run?: string; judge?: string },
  stateDir: (layout: RunLayout, run: string) => string,
  ledger = true,
) {
  const { config, env } = context.loadConfig(configFlags(flags));
  const layout = new RunLayout(resolve(context.io.cwd, config.dataDir));
  const batch = batchOptionsFor(context, flags, config, config.judge, stateDir(layout, config.run));
  const clientOptions = ledger
    ? llmClientOptions(context, config, env, batch)
    : modelClientOptions(context, config, env, batch);
  return {
    config,
    env,
    layout,
    batch,
    clientOptions,
    concurrency: stageConcurrency(config.judge, clientOptions),
  };
}

/** The usage ledger `--ledger` names, else the run's; it must exist. */
export function existingLedger(context: CliContext, config: XsbConfig, ledger: string | undefined): string {
  if (ledger) return requireExistingPath('usage ledger', resolve(context.io.cwd, ledger));
  return requireExistingPath(
    `run "${config.run}": usage ledger`,
    runLedgerFile(config, context.io.cwd),
    'a run gets one with its first judge call (or pass --ledger FILE)',
  );
}

/** `--system`, `--condition`, `--audience` and `--case` as the row filters of a run. */
export function rowFilters(flags: {
  system?: string[];
  condition?: string[];
  audience?: string[];
  case?: string[];
}) {
  return {
    ...(flags.system ? { systems: flags.system } : {}),
    ...(flags.condition ? { conditions: flags.condition } : {}),
    ...(flags.audience ? { audiences: flags.audience } : {}),
    ...(flags.case ? { cases: flags.case } : {}),
  };
}

/** The run's deck folder must exist before a plan or an evaluation of it. */
export function requireDeckFolder(layout: RunLayout, run: string): void {
  requireExistingPath(
    `run "${run}": deck folder`,
    layout.decksRoot(run),
    'generate or import decks for this run first (xsb decks generate|import --run …)',
  );
}

export function shardFlag(value: string | undefined): Shard | undefined {
  return value === undefined ? undefined : parseShard(value, '--shard');
}

export const SHARD_OPTION = [
  '--shard <i/n>',
  'only cases with md5(case label) % n == i (as Python computes it): run n shards, then `xsb merge` them',
] as const;

/** Where MinerU answers are cached: `XSLIDESBENCH_MINERU_CACHE_DIR`, else `<config cacheDir>/mineru`. */
export function mineruCacheDirFor(config: XsbConfig, env: Record<string, string>): string {
  return resolveMineruCacheDir(env) ?? join(config.cacheDir, 'mineru');
}

export { discoverSelectedCases } from '@xsb/sources';

/** How stages 1 and 2 read a source: the configured PDF parser, the MinerU cache, `--pages`. */
export function sourceOptionsFor(config: XsbConfig, env: Record<string, string>, pages: string | undefined) {
  return { pdfParser: config.pdfParser, env, mineruCacheDir: mineruCacheDirFor(config, env), pages };
}

/** An input named on the command line must exist before any work starts: a usage error, not a failed row. */
export function requireExistingPath(what: string, path: string, hint = ''): string {
  if (!existsSync(path)) throw new UsageError(`${what} ${path} does not exist${hint ? `; ${hint}` : ''}`);
  return path;
}
