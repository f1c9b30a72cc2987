import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseShard, plural, type Shard, UsageError, type XsbConfig, type XsbConfigInput } from '@xsb/core';
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

/**
 * Parses an integer flag; `min` is the smallest value allowed (none by default). Bad input is a usage
 * error (exit 2).
 */
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
  return value === undefined ? undefined : parsePageRange(value).spec;
}

export function parseTauA(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TAU_A;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1)
    throw new UsageError(`--tau-a must be a number from 0 to 1, got ${JSON.stringify(value)}`);
  return number;
}

/** The config overrides of the common `--data`, `--run` and `--judge` flags; unset flags override nothing. */
export function configFlags(flags: { data?: string; run?: string; judge?: string }): Partial<XsbConfigInput> {
  return {
    ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
    ...(flags.run !== undefined ? { run: flags.run } : {}),
    ...(flags.judge !== undefined ? { judge: flags.judge } : {}),
  };
}

/**
 * Model-client options from the configuration: cache, limits, prices and the run's usage ledger, and
 * `batch` when the command runs with `--batch` (see {@link batchOptionsFor}).
 */
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

/**
 * The model-client options of the configuration for a stage that keeps its own usage ledger (the
 * run's, or the demo's) or none: cache folder resolved against the working folder, limits of the
 * provider, prices, and `batch` with `--batch`.
 */
export function modelClientOptions(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
  batch?: BatchOptions,
) {
  return clientSettingsFromConfig(config, context.io.cwd, env, batch);
}

/** `--batch` and `--batch-fallback` of a judged command. */
export interface BatchFlags {
  batch?: boolean;
  batchFallback?: string;
}

/**
 * Declares `--batch` and `--batch-fallback` on a judged command; `where` names the folder its batch
 * state goes to, so `--help` says what a restart needs.
 */
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

/**
 * `BatchOptions` for `--batch` (undefined without it): the state folder, the fallback, config `batch`
 * settings and progress lines on stderr. `--batch` needs a provider judge: the offline `lexical` judge
 * and replay stores make no provider call, so either is a usage error (exit 2) naming why.
 */
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

/**
 * How many calls a stage keeps in flight: with `--batch` as many as a batch holds (so the batch
 * collects the whole stage), else `fallback` (the stage's own default).
 */
export function stageConcurrency(
  judge: string,
  options: CreateLlmClientOptions,
  fallback: number | undefined,
): number | undefined {
  return options.batch ? preferredConcurrencyFor(judge, options) : fallback;
}

/** `--shard i/n` (undefined without it); a malformed value is a usage error (exit 2). */
export function shardFlag(value: string | undefined): Shard | undefined {
  return value === undefined ? undefined : parseShard(value);
}

/** The `--shard` option as every per-case stage declares it. */
export const SHARD_OPTION = [
  '--shard <i/n>',
  'only cases with md5(case label) % n == i (as Python computes it): run n shards, then `xsb merge` them',
] as const;

/** Where MinerU answers are cached: `XSLIDESBENCH_MINERU_CACHE_DIR`, else `<config cacheDir>/mineru`. */
export function mineruCacheDirFor(config: XsbConfig, env: Record<string, string>): string {
  return resolveMineruCacheDir(env) ?? join(config.cacheDir, 'mineru');
}

export { discoverSelectedCases } from '@xsb/sources';

/**
 * An input named on the command line must exist before any work starts: its absence is a usage error
 * (exit 2), not a failed row.
 */
export function requireExistingPath(what: string, path: string, hint = ''): string {
  if (!existsSync(path)) throw new UsageError(`${what} ${path} does not exist${hint ? `; ${hint}` : ''}`);
  return path;
}
