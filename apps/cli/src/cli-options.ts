import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RunLayout, UsageError, type XsbConfig, type XsbConfigInput } from '@xsb/core';
import { type CreateLlmClientOptions, providerLimitsFor } from '@xsb/llm';
import { DEFAULT_TAU_A } from '@xsb/metrics';
import { type DiscoveredSources, discoverSourceCases, resolveMineruCacheDir } from '@xsb/sources';
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

/** Model-client options from the configuration: cache, limits and the run's usage ledger. */
export function llmClientOptions(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
): CreateLlmClientOptions {
  const limits = providerLimitsFor(config.judge, config.providers);
  return {
    env,
    cacheDir: resolve(context.io.cwd, config.cacheDir),
    noCache: config.noCache,
    refresh: config.refresh,
    ledgerFile: new RunLayout(resolve(context.io.cwd, config.dataDir)).usageLedgerFile(config.run),
    ...(limits ? { limits } : {}),
  };
}

/**
 * The model-client options of the configuration for a stage that keeps its own usage ledger (the
 * run's, or the demo's) or none: cache folder resolved against the working folder, limits of the provider.
 */
export function modelClientOptions(context: CliContext, config: XsbConfig, env: Record<string, string>) {
  const { env: clientEnv, cacheDir, noCache, refresh, limits } = llmClientOptions(context, config, env);
  return { env: clientEnv, cacheDir, noCache, refresh, ...(limits ? { limits } : {}) };
}

/** Where MinerU answers are cached: `XSLIDESBENCH_MINERU_CACHE_DIR`, else `<config cacheDir>/mineru`. */
export function mineruCacheDirFor(config: XsbConfig, env: Record<string, string>): string {
  return resolveMineruCacheDir(env) ?? join(config.cacheDir, 'mineru');
}

/**
 * The source cases under `<dataDir>/sources/` that `--case` picks (all without it), and the cases whose
 * folder could not be read. Asking for a case that does not exist is a usage error naming it.
 */
export async function discoverSelectedCases(
  dataDir: string,
  wanted: string[] | undefined,
): Promise<DiscoveredSources> {
  const discovered = await discoverSourceCases(dataDir);
  if (!wanted || wanted.length === 0) return discovered;
  const known = [...discovered.cases.map((c) => c.caseId), ...discovered.failures.map((f) => f.caseId)];
  const selected = new Set(wanted);
  const unknown = [...selected].filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown case ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${known.join(', ') || 'none'})`,
    );
  }
  return {
    cases: discovered.cases.filter((c) => selected.has(c.caseId)),
    failures: discovered.failures.filter((f) => selected.has(f.caseId)),
  };
}

/**
 * An input named on the command line must exist before any work starts: its absence is a usage error
 * (exit 2), not a failed row.
 */
export function requireExistingPath(what: string, path: string, hint = ''): string {
  if (!existsSync(path)) throw new UsageError(`${what} ${path} does not exist${hint ? `; ${hint}` : ''}`);
  return path;
}
