import { resolve } from 'node:path';
import { type ModelPrice, plural, UsageError } from '@xsb/core';
import { createJudge, DiskCache, describeJudge, type LlmClient, summarizeUsageLedger } from '@xsb/llm';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { configFlags, existingLedger, integerFlag, modelClientOptions } from '../cli-options';
import type { CommandModule } from '../command-module';
import { registerFill } from './llm-fill-subcommand';

interface CompleteFlags {
  judge?: string;
  prompt: string;
  system?: string;
  maxTokens?: string;
  temperature?: string;
  json?: boolean;
  cache?: boolean;
  refresh?: boolean;
  ledger?: string;
}

function parseTemperature(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0)
    throw new UsageError(`--temperature must be a non-negative number, got ${JSON.stringify(value)}`);
  return number;
}

/** `xsb llm`: check a judge set-up with one call, and look after the answer cache and the usage ledger. */
export const llmCommand: CommandModule = {
  name: 'llm',
  register(program, context) {
    const llm = program
      .command('llm')
      .description('check a model judge, manage the answer cache, sum token usage');
    registerComplete(llm, context);
    registerFill(llm, context);
    registerCache(llm, context);
    registerUsage(llm, context);
  },
};

function registerComplete(llm: Command, context: CliContext): void {
  llm
    .command('complete')
    .description(
      'make one call through the whole client (cache, limits, retries, ledger) and print the answer',
    )
    .option(
      '--judge <spec>',
      'anthropic:<model>, openai:<model>, replay:<store.jsonl> or record:<store.jsonl> (default: config judge)',
    )
    .requiredOption('--prompt <text>', 'the user prompt')
    .option('--system <text>', 'a system prompt')
    .option('--max-tokens <n>', 'answer token budget')
    .option('--temperature <t>', 'sampling temperature')
    .option('--no-cache', 'neither read nor write the answer cache')
    .option('--refresh', 'ignore cached answers and overwrite them')
    .option('--ledger <file>', 'append the call to this usage ledger (default: no ledger is written)')
    .option('--json', 'print {text, usage, retries, fromCache, latencyMs, model} as JSON')
    .action((flags: CompleteFlags) => completeOnce(context, flags));
}

async function completeOnce(context: CliContext, flags: CompleteFlags): Promise<void> {
  const { config, env } = context.loadConfig({
    ...configFlags(flags),
    ...(flags.cache === false ? { noCache: true } : {}),
    ...(flags.refresh ? { refresh: true } : {}),
  });
  if (describeJudge(config.judge).kind === 'offline')
    throw new UsageError(
      'judge "lexical" is the offline judge and makes no model calls: pass --judge anthropic:<model>, openai:<model> or replay:<store.jsonl>',
    );
  // Providers refuse a zero token budget.
  const maxTokens =
    flags.maxTokens === undefined ? undefined : integerFlag('--max-tokens', flags.maxTokens, 1, 1);
  const temperature = parseTemperature(flags.temperature);
  // A one-off check is no run: it writes a ledger only where --ledger says.
  const judge = createJudge(config.judge, {
    ...modelClientOptions(context, config, env),
    ...(flags.ledger ? { ledgerFile: resolve(context.io.cwd, flags.ledger) } : {}),
    stage: 'llm.complete',
  });
  const result = await (judge.client as LlmClient).complete({
    ...(flags.system !== undefined ? { system: flags.system } : {}),
    messages: [{ role: 'user', content: flags.prompt }],
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
  });
  if (!flags.json) {
    context.print(result.text);
    return;
  }
  const { text, usage, retries, fromCache, latencyMs, model } = result;
  context.printJson({ text, usage, retries, fromCache, latencyMs: Math.round(latencyMs * 10) / 10, model });
}

function registerCache(llm: Command, context: CliContext): void {
  const cache = llm.command('cache').description('the answer cache (XSB_CACHE_DIR / config cacheDir)');
  cache
    .command('stats')
    .description('print the cache folder, its number of answers and their size')
    .option('--json', 'print as JSON')
    .action(async (flags: { json?: boolean }) => {
      const { config } = context.loadConfig();
      const stats = await new DiskCache(resolve(context.io.cwd, config.cacheDir)).stats();
      if (flags.json) context.printJson(stats);
      else context.print(`${stats.dir}: ${plural(stats.entries, 'answer')}, ${stats.bytes} bytes`);
    });
  cache
    .command('clear')
    .description('delete every cached answer')
    .action(async () => {
      const { config } = context.loadConfig();
      const diskCache = new DiskCache(resolve(context.io.cwd, config.cacheDir));
      const removed = await diskCache.clear();
      context.print(`${diskCache.root}: removed ${plural(removed, 'answer')}`);
    });
}

function registerUsage(llm: Command, context: CliContext): void {
  llm
    .command('usage')
    .description(
      "sum the run's usage ledger by stage, judge and model, with estimated cost (config prices override the built-in table)",
    )
    .option('--ledger <file>', 'a ledger file (default: the run ledger of config dataDir and run)')
    .option('--json', 'print as JSON')
    .action(async (flags: { ledger?: string; json?: boolean }) => {
      const { config } = context.loadConfig();
      await printUsageSummary(
        context,
        existingLedger(context, config, flags.ledger),
        config.prices,
        flags.json ?? false,
      );
    });
}

/** The ledger summary by stage, judge and model with estimated cost (`xsb llm usage`, `xsb usage`). */
export async function printUsageSummary(
  context: CliContext,
  file: string,
  prices: Record<string, ModelPrice>,
  json: boolean,
): Promise<void> {
  const summary = await summarizeUsageLedger(file, prices);
  if (json) {
    context.printJson({ ledger: file, ...summary });
    return;
  }
  const cost = (usd: number | null) => (usd === null ? 'unpriced' : `$${usd.toFixed(4)}`);
  context.print(`ledger: ${file}`);
  for (const row of summary.rows)
    context.print(
      `${row.stage}\t${row.judge}\t${row.model}\tcalls ${row.calls} (cache hits ${row.cacheHits}, failed ${row.failures}, retries ${row.retries})\tin ${row.inputTokens} out ${row.outputTokens} cache-read ${row.cacheReadTokens} cache-write ${row.cacheWriteTokens}\t${cost(row.costUsd)}`,
    );
  context.print(
    `total\tcalls ${summary.totals.calls}\tin ${summary.totals.inputTokens} out ${summary.totals.outputTokens}\testimated ${cost(summary.totals.costUsd)}${summary.unpricedModels.length ? ` (unpriced: ${summary.unpricedModels.join(', ')})` : ''}`,
  );
}
