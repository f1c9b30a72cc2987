/** Config → model-client options, once: the CLI, the API's jobs and library entry points read them here. */
import { resolve } from 'node:path';
import { RunLayout, UsageError, type XsbConfig } from '@xsb/core';
import type { BatchEvent, BatchOptions } from './batching-client';
import { type CreateLlmClientOptions, providerLimitsFor } from './create-llm-client';
import { describeJudge } from './judge';

/** A configuration's client settings (cache folder resolved against `cwd`); add the ledger with {@link runLedgerFile}. */
export function clientSettingsFromConfig(
  config: Pick<XsbConfig, 'judge' | 'cacheDir' | 'noCache' | 'refresh' | 'providers' | 'prices'>,
  cwd: string,
  env: Record<string, string | undefined>,
  batch?: BatchOptions,
): Omit<CreateLlmClientOptions, 'fill' | 'providers'> {
  const settings: Omit<CreateLlmClientOptions, 'fill' | 'providers'> = {
    env,
    cacheDir: resolve(cwd, config.cacheDir),
    noCache: config.noCache,
    refresh: config.refresh,
    limits: providerLimitsFor(config.judge, config.providers),
    prices: config.prices,
    batch,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** The usage ledger of a configuration's run (`<dataDir>/runs/<run>/usage_ledger.jsonl`). */
export function runLedgerFile(config: Pick<XsbConfig, 'dataDir' | 'run'>, cwd: string): string {
  return new RunLayout(resolve(cwd, config.dataDir)).usageLedgerFile(config.run);
}

export interface BatchRequest {
  /** How a request a batch did not answer is sent again: `resubmit` (default) or `online`. */
  fallback?: string;
  /** Where batch state lives, so a restarted run resumes its batches. */
  stateDir: string;
  /** Config `batch` (sizes, polling). */
  settings?: Partial<BatchOptions>;
  onEvent?: (event: BatchEvent) => void;
}

/** Batch options for judge `spec`; a judge without a provider batch API, or a bad fallback, is a UsageError. */
export function batchOptionsForJudge(spec: string, request: BatchRequest): BatchOptions {
  const judge = describeJudge(spec);
  if (judge.kind === 'offline')
    throw new UsageError(
      "batch mode sends the judge's calls through a provider's batch API, but the lexical judge is offline and makes none: leave batch mode off or use an anthropic:<model> or openai:<model> judge",
      { code: 'batch_unsupported' },
    );
  if (!judge.capabilities.batch)
    throw new UsageError(
      `batch mode sends the judge's calls through a provider's batch API, but judge "${spec}" answers from its store and calls no provider: leave batch mode off`,
      { code: 'batch_unsupported' },
    );
  const fallback = request.fallback ?? 'resubmit';
  if (fallback !== 'resubmit' && fallback !== 'online')
    throw new UsageError(`--batch-fallback must be resubmit or online, got ${JSON.stringify(fallback)}`);
  return {
    ...request.settings,
    stateDir: request.stateDir,
    fallback,
    ...(request.onEvent ? { onEvent: request.onEvent } : {}),
  };
}
