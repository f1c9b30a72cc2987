import { resolve } from 'node:path';
import { DEFAULT_DIAG_BELOW, runBench } from '@xsb/bench';
import { RunLayout, UsageError } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  batchOptionsFor,
  collectList,
  integerFlag,
  modelClientOptions,
  parseTauA,
  SHARD_OPTION,
  shardFlag,
} from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import { benchDataDir, sweepInterruptedRuns } from './bench-shared';

interface RunFlags extends BatchFlags {
  data?: string;
  shard?: string;
  fill?: string;
  run?: string;
  split?: string;
  unsealTest?: boolean;
  configs?: string;
  factors?: string[];
  systems?: string[];
  reference?: string;
  judge?: string;
  llm?: string;
  tauA?: string;
  seed?: string;
  resamples?: string;
  diagBelow?: string;
  shapleyMetric?: string;
  benchConfig?: string;
  design?: boolean;
  json?: boolean;
}

/** `--llm record:STORE | replay:STORE` (or `--judge lexical`), with the store resolved from the working folder. */
function benchJudge(context: CliContext, flags: RunFlags): string {
  if (flags.llm !== undefined && flags.judge !== undefined)
    throw new UsageError('give --judge lexical or --llm record:STORE|replay:STORE, not both');
  const spec = (flags.llm ?? flags.judge ?? 'lexical').trim();
  const match = /^(replay|record):(.+)$/.exec(spec);
  if (match) return `${match[1]}:${resolve(context.io.cwd, match[2]!.trim())}`;
  if (flags.llm !== undefined)
    throw new UsageError(`--llm must be record:STORE or replay:STORE, got "${spec}"`);
  return spec;
}

export function registerRunCommand(bench: Command, context: CliContext): void {
  const command = bench
    .command('run')
    .description('evaluate systems on a split under configurations; writes a new <data>/bench/runs/<id>/')
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'the pipeline run whose decks are compared (default: config run)')
    .option('--split <name>', 'dev (default), test or all; test and all need --unseal-test')
    .option('--unseal-test', 'open the sealed test split (recorded in bench/test_ledger.jsonl)')
    .option(
      '--configs <spec>',
      'default (built in), ladder, loo, factorial, or a comma list of bench.yaml names',
    )
    .option(
      '--factors <names>',
      'factors of ladder/loo/factorial (default: all the judge can serve, built-in first; the others are named with the reason)',
      collectList,
    )
    .option(
      '--systems <ids>',
      'systems <generator>__<condition> to compare (default: all of the run)',
      collectList,
    )
    .option(
      '--reference <id>',
      "the system every other is paired against (default: the first of --systems, else the run sheet's first system)",
    )
    .option('--judge <spec>', 'lexical (offline, default)')
    .option(
      '--llm <spec>',
      'record:STORE (collect the real prompts, rows fail) or replay:STORE (answers from the store)',
    )
    .option('--tau-a <x>', 'audience weight threshold (default 0.7)')
    .option('--seed <n>', 'bootstrap seed (default 20240607)')
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--diag-below <n>', `mark comparisons on fewer cases as diag (default ${DEFAULT_DIAG_BELOW})`)
    .option('--shapley-metric <name>', 'metric the factorial attributes (default coverage)')
    .option('--bench-config <file>', 'configurations and factors (default <data>/bench.yaml)')
    .option(
      '--design',
      "also measure every deck's design metrics (no judge; each deck rendered once, LibreOffice for PPTX) and compare the systems on them",
    )
    .option(
      SHARD_OPTION[0],
      "only the split's cases with md5(case) % n == i; the run record says which shard (merge the shards' data with `xsb merge`, then run the bench unsharded to compare on the whole split)",
    )
    .option(
      '--fill <judge>',
      'with --llm record:STORE: prompts the store lacks are answered by this model (anthropic:<model> or openai:<model>), appended to STORE under its label, and the rows answered from the store',
    );
  addBatchFlags(command, "<data>/runs/<run>/batches/ (with --fill: the filling judge's calls)")
    .option('--json', 'print summary.json instead of the report')
    .action(async (flags: RunFlags) => {
      const judge = benchJudge(context, flags);
      const shard = shardFlag(flags.shard);
      if (flags.batch && flags.fill === undefined)
        throw new UsageError(
          '--batch on a bench run applies to the model that fills the store: give --llm record:STORE --fill anthropic:<model>|openai:<model> with it (bench judges answer from stores)',
        );
      const tauA = flags.tauA === undefined ? undefined : parseTauA(flags.tauA);
      const seed = flags.seed === undefined ? undefined : integerFlag('--seed', flags.seed, 0, 0);
      const resamples =
        flags.resamples === undefined ? undefined : integerFlag('--resamples', flags.resamples, 0, 1);
      const diagBelow = integerFlag('--diag-below', flags.diagBelow, DEFAULT_DIAG_BELOW, 1);
      const dataDir = benchDataDir(context, flags);
      const { config, env } = context.loadConfig({
        dataDir,
        ...(flags.run !== undefined ? { run: flags.run } : {}),
        judge,
      });
      const batch =
        flags.fill === undefined
          ? undefined
          : batchOptionsFor(
              context,
              flags,
              config,
              flags.fill,
              new RunLayout(dataDir).batchStateDir(config.run),
            );
      await sweepInterruptedRuns(context, dataDir);
      const result = await runBench({
        dataDir,
        pipelineRun: config.run,
        ...(flags.split !== undefined ? { split: flags.split as 'dev' } : {}),
        unsealTest: flags.unsealTest ?? false,
        ...(flags.configs !== undefined ? { configs: flags.configs } : {}),
        ...(flags.factors ? { factors: flags.factors } : {}),
        ...(flags.systems ? { systems: flags.systems } : {}),
        ...(flags.reference !== undefined ? { reference: flags.reference } : {}),
        judge,
        ...(flags.fill !== undefined ? { fill: { judge: flags.fill, ...(batch ? { batch } : {}) } } : {}),
        ...(shard ? { shard } : {}),
        ...(tauA !== undefined ? { tauA } : {}),
        ...(seed !== undefined ? { seed } : {}),
        ...(resamples !== undefined ? { resamples } : {}),
        diagBelow,
        ...(flags.shapleyMetric !== undefined ? { shapleyMetric: flags.shapleyMetric } : {}),
        ...(flags.benchConfig !== undefined
          ? { benchConfigFile: resolve(context.io.cwd, flags.benchConfig) }
          : {}),
        ...(flags.design ? { design: true } : {}),
        gitDirs: [dataDir, context.io.cwd],
        ...modelClientOptions(context, config, env),
        providers: config.providers,
        progress: context.progress(),
        onNotice: (line) => context.warn(line),
      });
      if (flags.json) context.printJson(result.summary);
      else {
        context.print(result.report.trimEnd());
        context.print('');
        context.print(`bench run ${result.runId}: ${result.dir}`);
      }
      for (const error of result.summary.errors)
        context.warn(
          `failed: ${error.configuration} ${error.system_id} ${error.case}/${error.audience}: ${error.error}`,
        );
      for (const failure of result.run.input_failures)
        context.warn(`failed: ${failure.where}: ${failure.error}`);
      const designFailures = new Map(
        result.rows.flatMap((row) => (row.design?.error ? [[row.deck, row.design.error] as const] : [])),
      );
      for (const [deck, error] of designFailures) context.warn(`failed: ${deck}: ${error}`);
      if (result.summary.rows.failed > 0 || result.run.input_failures.length > 0 || designFailures.size > 0)
        reportExitCode(1);
    });
}
