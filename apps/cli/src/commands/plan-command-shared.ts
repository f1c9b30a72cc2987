import { resolve } from 'node:path';
import { isCaseInShard, parseShard, writeJson, type XsbConfig } from '@xsb/core';
import { countLedgerLines } from '@xsb/eval';
import { runLedgerFile } from '@xsb/llm';
import { type CostPlan, CostPlanBuilder, costPlanSchema, costPlanTable } from '@xsb/plan';
import { Command, type Option } from 'commander';
import type { CliContext } from '../cli-context';
import { configFlags } from '../cli-options';
import type { CommandModule } from '../command-module';
import { printTable } from '../print-table';

/** The flags `xsb plan <command>` adds to the planned command's own, and those several planned commands share. */
export interface PlanFlags {
  exact?: boolean;
  json?: boolean;
  out?: string;
  planOut?: string;
  shard?: string;
  batch?: boolean;
  data?: string;
  run?: string;
  judge?: string;
  force?: boolean;
  k?: string;
  batchSize?: string;
  audiences?: string;
  audience?: string[];
  case?: string[];
  system?: string[];
  condition?: string[];
  [flag: string]: unknown;
}

/** The planned command as the real CLI registers it, never run: `xsb plan eval` takes exactly `xsb eval`'s flags. */
function registeredCommand(module: CommandModule, context: CliContext, path: string[]): Command {
  const scratch = new Command();
  module.register(scratch, context);
  let command: Command | undefined = scratch;
  for (const name of path) command = command?.commands.find((candidate) => candidate.name() === name);
  if (!command) throw new Error(`xsb plan: no command ${path.join(' ')} to plan`);
  return command;
}

/** `xsb plan <path…>` with the real command's options, then `--exact`, `--json`, `--out`/`--plan-out`. */
function planSubcommand(
  parent: Command,
  real: Command,
  description: string,
): { command: Command; outFlag: 'out' | 'planOut' } {
  const command = parent.command(real.name()).description(description);
  const own = new Set(['--json', '--exact', '--plan-out']);
  for (const option of real.options as Option[]) if (!own.has(option.long ?? '')) command.addOption(option);
  const hasOut = (real.options as Option[]).some((option) => option.long === '--out');
  command
    .option('--exact', "count input tokens with the provider's own token-count endpoint (needs the API key)")
    .option('--json', 'print the plan as JSON')
    .option('--plan-out <file>', 'write the plan (JSON) to this file, for `xsb usage --plan`');
  if (!hasOut) command.option('--out <file>', 'write the plan (JSON) to this file (same as --plan-out)');
  return { command, outFlag: hasOut ? 'planOut' : 'out' };
}

/** `--shard i/n` of the planned command as a case filter (every case without it). */
export function shardFilter(flags: PlanFlags): (caseLabel: string) => boolean {
  const shard = typeof flags.shard === 'string' ? parseShard(flags.shard, '--shard') : undefined;
  return (caseLabel) => isCaseInShard(caseLabel, shard);
}

const PLAN_NOTE = 'without calling any model: calls, tokens and cost (online, with prompt caching, batch)';

/** What a plan action changes of what the plan records: the run, its config, the ledger it writes. */
type PlanTarget = { run?: string; config?: XsbConfig; ledgerFile?: string };

/**
 * Declares `xsb plan <path…>` for a real command: `plan` checks the flags, calls `load` (config and
 * builder, after the flag checks) and prices the command's work list; the plan is then rendered
 * (table or JSON) and written to `--out`.
 */
export function registerPlan(
  parent: Command,
  context: CliContext,
  module: CommandModule,
  path: string[],
  plan: (
    flags: PlanFlags,
    load: () => { config: XsbConfig; env: Record<string, string>; builder: CostPlanBuilder },
  ) => Promise<PlanTarget> | Promise<void>,
  what = '',
): void {
  const description = `plan \`xsb ${path.join(' ')}\`${what} ${PLAN_NOTE}`;
  const { command, outFlag } = planSubcommand(parent, registeredCommand(module, context, path), description);
  command.action(async (flags: PlanFlags) => {
    let loaded: { config: XsbConfig; builder: CostPlanBuilder } | undefined;
    const target = (await plan(flags, () => {
      const { config, env } = context.loadConfig(configFlags(flags));
      loaded = { config, builder: planBuilder(context, config, env, flags) };
      return { ...loaded, env };
    })) as PlanTarget | undefined;
    const { builder } = loaded!;
    const config = target?.config ?? loaded!.config;
    const run = target?.run ?? config.run;
    const ledgerFile = target?.ledgerFile ?? runLedgerFile({ dataDir: config.dataDir, run }, context.io.cwd);
    if (flags.batch)
      builder.note('--batch: the calls go through the provider batch API, so the "batch" column is the bill');
    const costPlan = await builder.finish({
      command: plannedCommandLine(command),
      run,
      ledgerLinesBefore: await countLedgerLines(ledgerFile),
    });
    const out = flags[outFlag];
    if (typeof out === 'string') await writeJson(resolve(context.io.cwd, out), costPlanSchema, costPlan);
    if (flags.json) context.printJson(costPlan);
    else {
      printCostPlan(context, costPlan);
      if (typeof out === 'string') context.print(`plan written to ${resolve(context.io.cwd, out)}`);
    }
  });
}

/** A builder for the configured judge, client settings and prices. */
function planBuilder(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
  flags: PlanFlags,
): CostPlanBuilder {
  return new CostPlanBuilder({
    judge: config.judge,
    env,
    cacheDir: resolve(context.io.cwd, config.cacheDir),
    noCache: config.noCache,
    refresh: config.refresh,
    prices: config.prices,
    exact: flags.exact ?? false,
  });
}

/** The words after `xsb plan` on the command line, for the plan's `command`. */
function plannedCommandLine(command: Command): string {
  let root = command;
  while (root.parent) root = root.parent;
  const args = (root as unknown as { rawArgs: string[] }).rawArgs ?? [];
  const at = args.indexOf('plan');
  return (at >= 0 ? args.slice(at + 1) : [command.name()]).join(' ');
}

function printCostPlan(context: CliContext, plan: CostPlan): void {
  const table = costPlanTable(plan);
  context.print(`# cost plan: xsb ${plan.command} (judge ${plan.judge}; no model was called)`);
  printTable(context.print, table.header, table.rows, table.numeric);
  const priced = Object.keys(plan.prices.models);
  context.print(
    `prices: ${priced.length > 0 ? `${priced.join(', ')} from the ${plan.prices.source} table` : 'none'} (default table as of ${plan.prices.as_of}), USD; tokens: ${plan.estimator.name} (${plan.estimator.description})`,
  );
  context.print(
    `prompt cache: ${plan.prompt_cache.description} (prefixes of at least ${plan.prompt_cache.min_tokens} tokens)`,
  );
  context.print(
    'calls: provider calls; cached: answered by the xsb disk cache; reused: held by finished artifacts (both free)',
  );
  for (const row of plan.rows)
    for (const assumption of [...row.assumptions, ...row.input_assumptions])
      context.print(`estimated ${row.stage}: ${assumption}`);
  for (const note of plan.notes) context.print(`note: ${note}`);
}
