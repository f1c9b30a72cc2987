// One measured scale run in its own process (so its peak RSS is its own): plan, then the real stage
// code through the real SDK client against the fake provider, then plan vs ledger. Prints one JSON
// line. argv: JSON RunPartOptions.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type RunLayout, readJsonlAll } from '@xsb/core';
import {
  type CreateLlmClientOptions,
  costOfUsage,
  createLlmClient,
  judgeFromClient,
  priceFor,
  usageLedgerEntrySchema,
} from '@xsb/llm';
import { runRubric } from '@xsb/rubric';
import { CostPlanBuilder } from '../src/cost-plan-builder';
import { planRubric } from '../src/plan-rubric';
import { reconcileUsage } from '../src/reconcile-usage';
import { runPipeline, type StagePeak } from './scale-pipeline';

export interface RunPartOptions {
  part: 'rubric' | 'pipeline';
  dir: string;
  url: string;
  judge: string;
  concurrency: number;
  batch?: { idleMs: number; pollIntervalMs: number; maxPollIntervalMs: number; maxBytesPerBatch?: number };
  /** Rubric: decks evaluated at once (`runRubric`'s `instanceConcurrency`, default 1). */
  deckConcurrency?: number;
  /** Rubric: the results trees (one per system). */
  resultsDirs?: string[];
  instancesDir?: string;
  /** Pipeline: the data folder (sources written) and whether stage 2 runs through the model. */
  dataDir?: string;
  withProbes?: boolean;
}

const options = JSON.parse(process.argv[2] ?? '{}') as RunPartOptions;
const env = {
  ANTHROPIC_API_KEY: 'bench-key',
  ANTHROPIC_BASE_URL: options.url,
  OPENAI_API_KEY: 'bench-key',
  OPENAI_BASE_URL: `${options.url}/v1`,
};

let peakRss = process.memoryUsage().rss;
const samples: number[] = [];
const sampler = setInterval(() => {
  const rss = process.memoryUsage().rss;
  peakRss = Math.max(peakRss, rss);
  samples.push(rss);
}, 250);

const ledgerFile = join(options.dir, 'usage_ledger.jsonl');
const clientOptions: CreateLlmClientOptions = {
  env,
  noCache: true,
  ledgerFile,
  limits: { maxConcurrency: options.concurrency },
  ...(options.batch ? { batch: { stateDir: options.dir, ...options.batch } } : {}),
};

async function planAndRunRubric(builder: CostPlanBuilder): Promise<{ planMs: number; runMs: number }> {
  const started = performance.now();
  for (const resultsDir of options.resultsDirs ?? [])
    await planRubric(builder, { instancesDir: options.instancesDir!, resultsDir });
  const planMs = performance.now() - started;
  const client = createLlmClient(options.judge, clientOptions);
  const runStarted = performance.now();
  const runSystem = (resultsDir: string) =>
    runRubric({
      instancesDir: options.instancesDir!,
      resultsDir,
      judge: judgeFromClient(options.judge, client),
      concurrency: options.batch ? (client.preferredConcurrency ?? options.concurrency) : options.concurrency,
      instanceConcurrency: options.deckConcurrency ?? 1,
    });
  // Online, one system after another (one `xsb rubric run` each); through the batch API all systems
  // at once, so one batch collects the items of every system's decks in flight.
  if (options.batch) await Promise.all((options.resultsDirs ?? []).map(runSystem));
  else for (const resultsDir of options.resultsDirs ?? []) await runSystem(resultsDir);
  return { planMs, runMs: performance.now() - runStarted };
}

// The rubric's prompts never repeat, so it runs without the disk cache (which would only add a
// file write per answer); the pipeline uses it, as `xsb` does: an agnostic deck's answerability
// prompts repeat for each audience and are answered from it.
const builder = new CostPlanBuilder(
  options.part === 'rubric'
    ? { judge: options.judge, env, noCache: true }
    : { judge: options.judge, env, cacheDir: join(options.dir, 'cache') },
);
let timing: {
  planMs: number;
  runMs: number;
  stages?: Record<string, number>;
  stagePeaks?: Record<string, StagePeak>;
};
let layout: RunLayout | undefined;
if (options.part === 'rubric') timing = await planAndRunRubric(builder);
else {
  const result = await runPipeline(builder, {
    dataDir: options.dataDir!,
    judge: options.judge,
    clientOptions: { ...clientOptions, noCache: false, cacheDir: join(options.dir, 'cache') },
    withProbes: options.withProbes ?? true,
  });
  timing = result;
  layout = result.layout;
}
clearInterval(sampler);
const plan = await builder.finish({ command: options.part, run: null, ledgerLinesBefore: 0 });
const ledger = layout ? layout.usageLedgerFile('scale') : ledgerFile;
const lines = existsSync(ledger) ? await readJsonlAll(ledger, usageLedgerEntrySchema) : [];
const reconciliation = reconcileUsage(plan, lines);
const billed = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
let providerCalls = 0;
const batchIds = new Set<string>();
let cacheHits = 0;
let latencySum = 0;
for (const line of lines) {
  if (line.cacheHit) {
    cacheHits += 1;
    continue;
  }
  providerCalls += 1;
  if (line.batchId) batchIds.add(line.batchId);
  latencySum += line.latencyMs;
  billed.inputTokens += line.inputTokens;
  billed.outputTokens += line.outputTokens;
  billed.cacheReadTokens += line.cacheReadTokens;
  billed.cacheWriteTokens += line.cacheWriteTokens;
}
const model = options.judge.split(':')[1]!;
const price = priceFor(options.judge, model)!;
const prompt = billed.inputTokens + billed.cacheReadTokens + billed.cacheWriteTokens;
const uncached = {
  inputTokens: prompt,
  outputTokens: billed.outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};
process.stdout.write(
  `${JSON.stringify({
    part: options.part,
    batch: options.batch !== undefined,
    deckConcurrency: options.deckConcurrency ?? 1,
    planMs: Math.round(timing.planMs),
    runMs: Math.round(timing.runMs),
    stages: timing.stages ?? {},
    stagePeaks: timing.stagePeaks ?? {},
    peakRssMb: Math.round(peakRss / 1024 / 1024),
    rssMb: {
      first: Math.round((samples[0] ?? peakRss) / 1048576),
      last: Math.round((samples.at(-1) ?? peakRss) / 1048576),
    },
    providerCalls,
    batches: batchIds.size,
    cacheHits,
    meanLatencyMs: providerCalls > 0 ? Math.round(latencySum / providerCalls) : 0,
    billed,
    promptTokens: prompt,
    costUsd: {
      uncachedOnline: costOfUsage(uncached, price, false),
      cachedOnline: costOfUsage(billed, price, false),
      batch: costOfUsage(billed, price, true),
      uncachedBatch: costOfUsage(uncached, price, true),
    },
    plan: {
      totals: plan.totals,
      rows: plan.rows.map((row) => ({
        stage: row.stage,
        calls: row.calls,
        cached: row.cached_calls,
        input: row.input_tokens,
        exact: row.exact,
        cost: row.cost_usd,
      })),
    },
    reconciliation: reconciliation.rows.map((row) => ({
      stage: row.stage,
      exact: row.exact,
      plannedCalls: row.planned.calls,
      actualCalls: row.actual.calls,
      plannedCached: row.planned.cached_calls,
      actualCached: row.actual.cached_calls,
      inputError: row.input_error,
      problems: row.problems,
    })),
  })}\n`,
);
