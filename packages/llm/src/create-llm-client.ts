import { ConfigError, type ModelPrice, type ProviderLimits } from '@xsb/core';
import { ANTHROPIC_BATCH_LIMITS, createAnthropicAdapter } from './anthropic-adapter';
import { BatchingClient, type BatchOptions } from './batching-client';
import type { LlmClient } from './completion-types';
import { DiskCache } from './disk-cache';
import { fillLabelFor, ReplayStoreAppender } from './fill-replay-store';
import { createOpenAiAdapter, OPENAI_BATCH_LIMITS } from './openai-adapter';
import { parseJudgeSpec } from './parse-judge-spec';
import { ProviderClient } from './provider-client';
import { requireProviderSdk } from './provider-sdks';
import { ReplayClient } from './replay-client';
import { resolveLimits } from './retry-policy';
import { UsageLedger } from './usage-ledger';

export interface CreateLlmClientOptions {
  /** Where keys and base URLs are read (default `process.env`); pass `LoadedConfig.env` to include `.env`. */
  env?: Record<string, string | undefined>;
  /** The disk cache folder (config `cacheDir` / `XSB_CACHE_DIR`); without it answers are not cached. */
  cacheDir?: string;
  /** Neither read nor write the disk cache. */
  noCache?: boolean;
  /** Do not read the disk cache, but write fresh answers into it. */
  refresh?: boolean;
  /** The run's usage ledger (`RunLayout.usageLedgerFile(run)`); every call appends one line. */
  ledgerFile?: string;
  /** Limits for this provider (config `providers.<anthropic|openai>`). */
  limits?: ProviderLimits;
  /** Config `providers` as a whole: the entry of the spec's provider is used when `limits` is unset. */
  providers?: Record<string, ProviderLimits>;
  /** The ledger's stage when a request does not name one. */
  stage?: string;
  /** Random source for backoff jitter (tests pin it). */
  random?: () => number;
  /** First backoff step in ms (default 500); tests shorten it. Server-given retry times still apply. */
  baseBackoffMs?: number;
  /** Answer calls through the provider's batch API (`--batch`; Anthropic and OpenAI judges only). */
  batch?: BatchOptions;
  /** Config `prices` (over the default table) for the ledger lines' `costUsd`. */
  prices?: Record<string, ModelPrice>;
  /** `record:` specs only: answer the prompts the store lacks with this client and append them to the store. */
  fill?: LlmClient;
}

/** Per provider: its key and base-URL variables, default base URL, adapter and batch limits. */
const PROVIDERS = {
  anthropic: {
    keyVariable: 'ANTHROPIC_API_KEY',
    urlVariable: 'ANTHROPIC_BASE_URL',
    defaultUrl: 'https://api.anthropic.com',
    adapter: createAnthropicAdapter,
    batchLimits: ANTHROPIC_BATCH_LIMITS,
  },
  openai: {
    keyVariable: 'OPENAI_API_KEY',
    urlVariable: 'OPENAI_BASE_URL',
    defaultUrl: 'https://api.openai.com/v1',
    adapter: createOpenAiAdapter,
    batchLimits: OPENAI_BATCH_LIMITS,
  },
} as const;

function requireKey(env: Record<string, string | undefined>, variable: string, spec: string): string {
  const key = env[variable]?.trim();
  if (!key)
    throw new ConfigError(
      `judge "${spec}" needs ${variable}: set it in the environment or in .env (for a local OpenAI-compatible server that ignores keys, any non-empty value)`,
    );
  return key;
}

/** The limits config `providers` sets for the spec's provider (undefined for other specs). */
export function providerLimitsFor(
  judgeSpec: string,
  providers: Record<string, ProviderLimits> | undefined,
): ProviderLimits | undefined {
  const spec = parseJudgeSpec(judgeSpec);
  return spec.kind === 'anthropic' || spec.kind === 'openai' ? providers?.[spec.kind] : undefined;
}

/** The client for a judge spec; a missing key or replay store is a ConfigError before any work. */
export function createLlmClient(judgeSpec: string, options: CreateLlmClientOptions = {}): LlmClient {
  const spec = parseJudgeSpec(judgeSpec);
  const env = options.env ?? process.env;
  const ledger = options.ledgerFile ? new UsageLedger(options.ledgerFile, options.prices) : undefined;
  const stage = options.stage ?? 'llm';
  switch (spec.kind) {
    case 'lexical':
      throw new ConfigError(
        'judge "lexical" is the offline judge and has no model client; check judge.kind first (createJudge)',
      );
    case 'replay':
    case 'record': {
      if (options.fill && spec.kind !== 'record')
        throw new ConfigError(
          `judge "${spec.spec}" answers only from its store; filling a store needs record:${spec.store}`,
        );
      const fill = options.fill && {
        client: options.fill,
        appender: new ReplayStoreAppender(spec.store, fillLabelFor(options.fill.judgeId)),
      };
      return new ReplayClient({
        judgeId: spec.spec,
        store: spec.store,
        mode: spec.kind,
        stage,
        ledger,
        fill,
      });
    }
    case 'anthropic':
    case 'openai': {
      const provider = PROVIDERS[spec.kind];
      const key = requireKey(env, provider.keyVariable, spec.spec);
      requireProviderSdk(spec.kind, spec.spec);
      const client = new ProviderClient({
        judgeId: spec.spec,
        model: spec.model,
        adapter: provider.adapter(key, providerBaseUrl(spec.spec, env) as string),
        limits: resolveLimits(options.limits ?? options.providers?.[spec.kind]),
        cache: options.cacheDir && !options.noCache ? new DiskCache(options.cacheDir) : undefined,
        refresh: Boolean(options.refresh),
        ledger,
        stage,
        secrets: [key],
        random: options.random,
        baseBackoffMs: options.baseBackoffMs,
      });
      return options.batch ? new BatchingClient(client, options.batch) : client;
    }
  }
}

/** Calls a stage should keep in flight: the batch capacity with `batch` (so batches fill), else `maxConcurrency`. */
export function preferredConcurrencyFor(judgeSpec: string, options: CreateLlmClientOptions = {}): number {
  const spec = parseJudgeSpec(judgeSpec);
  const limits = resolveLimits(options.limits ?? providerLimitsFor(spec.spec, options.providers));
  if (!options.batch || (spec.kind !== 'anthropic' && spec.kind !== 'openai')) return limits.maxConcurrency;
  return options.batch.maxPending ?? PROVIDERS[spec.kind].batchLimits.maxRequests;
}

/** The base URL a provider client of this spec sends to (it keys the disk cache); undefined without a provider. */
export function providerBaseUrl(
  judgeSpec: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  const spec = parseJudgeSpec(judgeSpec);
  if (spec.kind !== 'anthropic' && spec.kind !== 'openai') return undefined;
  const provider = PROVIDERS[spec.kind];
  return env[provider.urlVariable]?.trim() || provider.defaultUrl;
}
