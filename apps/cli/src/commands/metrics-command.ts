import { resolve } from 'node:path';
import {
  emptyProbeBankNote,
  emptyProbeBankWarnings,
  listEmptyProbeBanks,
  plural,
  RunLayout,
} from '@xsb/core';
import { designMetricReader, referenceMetricReader } from '@xsb/design';
import { aggregateRun } from '@xsb/eval';
import {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  DEFAULT_TAU_A,
  formatJudges,
  formatMissingJob,
  hasOfflineJudge,
  mergeJudges,
  OFFLINE_JUDGE_WARNING,
  renderResultsTables,
  rescoreRun,
  runAggregation,
} from '@xsb/metrics';
import type { Command } from 'commander';
import { remedyCommand } from '../cli-advice';
import type { CliContext } from '../cli-context';
import {
  collectList,
  configFlags,
  integerFlag,
  parseTauA,
  requireExistingPath,
  rowFilters,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

interface FilterFlags {
  system?: string[];
  condition?: string[];
  audience?: string[];
  case?: string[];
}

interface MetricsFlags extends FilterFlags {
  data?: string;
  run?: string;
  tauA?: string;
  json?: boolean;
}

interface AggregateFlags extends FilterFlags {
  data?: string;
  run?: string;
  out?: string;
  seed?: string;
  resamples?: string;
  json?: boolean;
}

const fixed = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value.toFixed(4);

/** The `--system/--condition/--audience/--case` flags every command of this group takes. */
function withFilterFlags(command: Command): Command {
  return command
    .option('--system <name>', 'only these systems (generators; repeatable or comma-separated)', collectList)
    .option('--condition <name>', 'only these conditions', collectList)
    .option('--audience <name>', 'only these audiences', collectList)
    .option('--case <label>', 'only these cases', collectList);
}

/** `xsb metrics` (stage 6 again, no judge) and `xsb aggregate` (stage 7). */
export const metricsCommand: CommandModule = {
  name: 'metrics',
  register(program, context) {
    registerMetrics(program, context);
    registerAggregate(program, context);
  },
};

function registerMetrics(program: Command, context: CliContext): void {
  withFilterFlags(
    program
      .command('metrics')
      .description('stage 6: recompute metrics.json of every finished evaluation of a run (no judge calls)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--tau-a <x>', `audience weight threshold for included probes (default ${DEFAULT_TAU_A})`)
      .option('--json', 'print the metric rows as JSON'),
  ).action((flags: MetricsFlags) => rescoreCommand(context, flags));
}

async function rescoreCommand(context: CliContext, flags: MetricsFlags): Promise<void> {
  const tauA = parseTauA(flags.tauA);
  const { config } = context.loadConfig(configFlags(flags));
  const layout = new RunLayout(resolve(context.io.cwd, config.dataDir));
  // A mistyped --run or --data is a usage error, not an empty result.
  requireExistingPath(
    `run "${config.run}": evaluation folder`,
    layout.evaluationsRoot(config.run),
    'evaluate the run first (xsb eval --run …)',
  );
  const { rows, failures } = await rescoreRun(layout, config.run, { tauA, filters: rowFilters(flags) });
  const judges = mergeJudges(rows.map((row) => row.judges));
  if (flags.json) context.printJson({ judges, rows, failures });
  else {
    context.print(`judges: ${judges.length > 0 ? formatJudges(judges) : 'none recorded'}`);
    if (hasOfflineJudge(judges)) context.print(`WARNING: ${OFFLINE_JUDGE_WARNING}`);
    printMetricRows(context, rows);
    for (const failure of failures) context.warn(`failed: ${failure.message}`);
    context.print(`${plural(rows.length, 'evaluation')} rescored at tau_a ${tauA}`);
  }
  for (const line of await emptyProbeBankWarnings(
    layout,
    rows.map((row) => row.case_label),
  ))
    context.warn(line);
  if (failures.length > 0) reportExitCode(1);
}

function printMetricRows(context: CliContext, rows: Awaited<ReturnType<typeof rescoreRun>>['rows']): void {
  context.print(
    'system_id\taudience\tcase\tincluded_probes\tcoverage\tefficiency_time\tcorrectness\tsafe_efficiency_time',
  );
  for (const row of rows)
    context.print(
      [
        row.system_id,
        row.audience,
        row.case_label,
        String(row.included_probe_count),
        fixed(row.coverage),
        fixed(row.efficiency_time),
        fixed(row.correctness),
        fixed(row.safe_efficiency_time),
      ].join('\t'),
    );
}

function registerAggregate(program: Command, context: CliContext): void {
  withFilterFlags(
    program
      .command('aggregate')
      .description(
        'stage 7: mean and bootstrap 95% interval per (system, audience) into summary.json/csv and report.md',
      )
      .argument(
        '[roots...]',
        'folders to scan for metrics (default: the run folder, whose missing jobs are then listed)',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--out <dir>', 'output folder (default <run>/summary)')
      .option('--seed <n>', `bootstrap seed (default ${DEFAULT_BOOTSTRAP_SEED})`)
      .option('--resamples <n>', `bootstrap resamples (default ${DEFAULT_BOOTSTRAP_RESAMPLES})`)
      .option('--json', 'print summary.json instead of the tables'),
  ).action((roots: string[], flags: AggregateFlags) => aggregateCommand(context, roots, flags));
}

async function aggregateCommand(context: CliContext, roots: string[], flags: AggregateFlags): Promise<void> {
  const seed = integerFlag('--seed', flags.seed, DEFAULT_BOOTSTRAP_SEED, 0);
  const resamples = integerFlag('--resamples', flags.resamples, DEFAULT_BOOTSTRAP_RESAMPLES, 1);
  const { config } = context.loadConfig(configFlags(flags));
  const dataDir = resolve(context.io.cwd, config.dataDir);
  const layout = new RunLayout(dataDir);
  const outDir = flags.out ? resolve(context.io.cwd, flags.out) : layout.summaryDir(config.run);
  // design.json and reference.json of `xsb design` are summarised beside the X+Slides metrics where a run has them.
  const options = {
    seed,
    resamples,
    filters: rowFilters(flags),
    readers: [designMetricReader, referenceMetricReader],
  };
  if (roots.length === 0) requireExistingPath(`run "${config.run}": folder`, layout.runDir(config.run));
  // Over the run, its deck tree says which jobs there should be; over other folders nobody knows.
  const { summary, files } =
    roots.length === 0
      ? await aggregateRun({ dataDir, run: config.run, outDir, ...options })
      : await runAggregation(
          roots.map((root) => requireExistingPath('folder', resolve(context.io.cwd, root))),
          outDir,
          options,
        );
  if (flags.json) context.printJson(summary);
  else {
    for (const line of renderResultsTables(summary)) context.print(line);
    context.print(`wrote ${files.json}, ${files.csv}, ${files.report}`);
  }
  for (const entry of summary.skipped)
    context.warn(`skipped ${resolve(outDir, entry.file)}: ${entry.reason}`);
  const missing = summary.missing_jobs ?? [];
  for (const job of missing)
    context.warn(`missing: ${formatMissingJob({ ...job, where: resolve(outDir, job.where) })}`);
  if (missing.some((job) => job.status !== 'undiscoverable')) {
    const command = remedyCommand({ step: 'eval', dataDir, run: config.run }, context.io.cwd);
    context.warn(`to evaluate the missing jobs: run \`${command}\` (it resumes)`);
  }
  const emptyBanks =
    summary.empty_probe_banks ??
    (await listEmptyProbeBanks(
      layout,
      summary.rows.map((row) => row.case_label),
    ));
  for (const caseLabel of emptyBanks) context.warn(`warning: ${emptyProbeBankNote(caseLabel)}`);
  if (summary.skipped.length > 0 || (summary.missing_jobs?.length ?? 0) > 0) reportExitCode(1);
}
