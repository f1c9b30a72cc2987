import { resolve } from 'node:path';
import { emptyProbeBankWarnings, plural } from '@xsb/core';
import { DEFAULT_BATCH_SIZE, type EvaluationRunResult, runEvaluation } from '@xsb/eval';
import { DEFAULT_TAU_A } from '@xsb/metrics';
import type { CliContext } from '../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  collectList,
  integerFlag,
  judgedStage,
  parseTauA,
  requireDeckFolder,
  rowFilters,
  SHARD_OPTION,
  shardFlag,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { evaluationRetestOf } from './meta/eval-retest';
import { printRetest, REPEATS_FLAG_HELP, repeatsFlag } from './meta/retest-output';

interface EvalFlags extends BatchFlags {
  data?: string;
  shard?: string;
  run?: string;
  judge?: string;
  tauA?: string;
  batchSize?: string;
  correctnessCacheDir?: string;
  force?: boolean;
  system?: string[];
  condition?: string[];
  audience?: string[];
  case?: string[];
  json?: boolean;
  repeats?: string;
}

/** `xsb eval`: stage 5 (and stage 6 per job) for every deck of a run. */
export const evalCommand: CommandModule = {
  name: 'eval',
  register(program, context) {
    const command = program
      .command('eval')
      .description(
        'stage 5: judge every deck of a run (answerability + correctness) and write metrics per job',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option(
        '--judge <spec>',
        'lexical (offline, default), anthropic:<model>, openai:<model>, replay:<store>, record:<store>',
      )
      .option('--tau-a <x>', `audience weight threshold for included probes (default ${DEFAULT_TAU_A})`)
      .option('--batch-size <n>', `probes per answerability call (default ${DEFAULT_BATCH_SIZE})`)
      .option('--correctness-cache-dir <dir>', 'correctness cache folder (default <run>/correctness_cache)')
      .option('--force', 'judge again even when a job is current')
      .option('--system <name>', 'only these systems (repeatable or comma-separated)', collectList)
      .option('--condition <name>', 'only these conditions', collectList)
      .option('--audience <name>', 'only these audiences', collectList)
      .option('--case <label>', 'only these cases', collectList)
      .option(...SHARD_OPTION);
    addBatchFlags(command, '<data>/runs/<run>/batches/')
      .option('--json', 'print the job results as JSON')
      .option('--repeats <n>', REPEATS_FLAG_HELP)
      .action(async (flags: EvalFlags) => {
        const tauA = parseTauA(flags.tauA);
        const repeats = repeatsFlag(flags.repeats);
        const batchSize = integerFlag('--batch-size', flags.batchSize, DEFAULT_BATCH_SIZE, 1);
        const shard = shardFlag(flags.shard);
        // The run keeps its own usage ledger.
        const stage = judgedStage(context, flags, (layout, run) => layout.batchStateDir(run), false);
        const { config, layout, clientOptions, concurrency } = stage;
        requireDeckFolder(layout, config.run);
        // With --batch, every job's calls are asked at once (the jobs of one case still in order), so a
        // batch collects a whole step of the run: all answerability batches, then all claim extractions, …
        const outcome = await runEvaluation({
          dataDir: layout.dataDir,
          run: config.run,
          judge: config.judge,
          tauA,
          batchSize,
          ...(flags.correctnessCacheDir
            ? { correctnessCacheDir: resolve(context.io.cwd, flags.correctnessCacheDir) }
            : {}),
          force: flags.force ?? false,
          filters: rowFilters(flags),
          ...clientOptions,
          ...(concurrency !== undefined ? { concurrency, jobConcurrency: concurrency } : {}),
          ...(shard ? { shard } : {}),
          progress: context.progress(),
          ...(repeats > 1 ? { repeats } : {}),
        });
        const retest =
          repeats > 1
            ? await evaluationRetestOf(outcome, { dataDir: layout.dataDir, run: config.run, repeats })
            : null;
        const { rows, failures } = printEvalOutcome(context, outcome, retest, flags.json ?? false);
        for (const line of await emptyProbeBankWarnings(
          layout,
          rows.map((row) => row.case),
        ))
          context.warn(line);
        if (rows.some((r) => r.outcome === 'failed') || failures.length > 0) reportExitCode(1);
        if (retest && retest.retest.failures.length > 0) reportExitCode(1);
      });
  },
};

/** Prints the job rows (or the JSON) of an evaluation run; returns them for the exit code. */
function printEvalOutcome(
  context: CliContext,
  outcome: EvaluationRunResult,
  retest: Awaited<ReturnType<typeof evaluationRetestOf>> | null,
  json: boolean,
) {
  const rows = outcome.results.map((r) => ({
    system: r.job.system,
    condition: r.job.condition,
    audience: r.job.audience,
    case: r.job.caseLabel,
    outcome: r.outcome,
    judged_batches: r.judgedBatches,
    reused_batches: r.reusedBatches,
    error: r.error ?? null,
  }));
  const failures = outcome.discoveryFailures.map((f) => ({ where: f.where, error: f.error.message }));
  if (json)
    context.printJson({
      judge: outcome.judge,
      jobs: rows,
      discovery_failures: failures,
      ...(retest ? { retest: retest.retest, retest_file: retest.file } : {}),
    });
  else {
    for (const row of rows)
      context.print(
        `${row.outcome.padEnd(9)} ${row.system}/${row.condition}/${row.audience}/${row.case}` +
          (row.error
            ? `: ${row.error}`
            : ` (${plural(row.judged_batches, 'batch', 'batches')} judged, ${row.reused_batches} reused)`),
      );
    for (const failure of failures) context.print(`failed    ${failure.error}`);
    // A deck folder that yields no job is a failure too: "3/3 jobs done" beside 3 of them misleads.
    const failed = rows.filter((r) => r.outcome === 'failed').length + failures.length;
    const total = rows.length + failures.length;
    context.print(
      `${total - failed}/${plural(total, 'job')} done${failed > 0 ? `, ${failed} failed,` : ''} with judge ${outcome.judge}`,
    );
    if (retest) printRetest(context, retest.retest, retest.file);
  }
  return { rows, failures };
}
