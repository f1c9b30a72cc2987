import { basename, resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import { BATCH_INSTANCE_CONCURRENCY, runRubric } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  requireExistingPath,
  SHARD_OPTION,
  shardFlag,
} from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import {
  addJudgingFlags,
  batchedJudgeFrom,
  batchJudging,
  type JudgingFlags,
  judgingOptions,
  percent,
} from './rubric-flags';

interface RunFlags extends JudgingFlags, BatchFlags {
  instances: string;
  results: string;
  system?: string;
  shard?: string;
}

export function registerRun(rubric: Command, context: CliContext): void {
  const command = rubric
    .command('run')
    .description('evaluate every instance’s deck at <results>/<case>/generation_task/results/slides.pdf|pptx')
    .requiredOption('--instances <dir>', 'PresentBench data root, or a folder of instance.yaml files')
    .requiredOption('--results <dir>', 'the generator’s results root (same sub-paths as the instances)');
  addBatchFlags(addJudgingFlags(command), '<results>/batches/')
    .option(
      SHARD_OPTION[0],
      'only instances with md5(instance id) % n == i (as Python computes it); writes xsb_rubric_summary_<judge>.shard-i-of-n.json, which `xsb merge` turns into the unsharded summary',
    )
    .option(
      '--system <name>',
      'the system the decks are from, recorded in the summary and shown by reports (default: the results folder name)',
    )
    .option('--json', 'print the run summary as JSON')
    .action(async (flags: RunFlags) => {
      if (flags.system !== undefined && flags.system.trim() === '')
        throw new UsageError('--system needs a name, got an empty string');
      const { errorPolicy, judging } = judgingOptions(flags);
      const shard = shardFlag(flags.shard);
      const instancesDir = requireExistingPath('--instances', resolve(context.io.cwd, flags.instances));
      const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results));
      const { judge, batchConcurrency } = batchedJudgeFrom(context, flags, resultsDir);
      const batched = batchJudging(batchConcurrency, flags.concurrency);
      const { summary, summaryFile } = await runRubric({
        instancesDir,
        resultsDir,
        judge,
        force: flags.force ?? false,
        attachPdf: flags.attachPdf ?? false,
        errorPolicy,
        ...(flags.system ? { system: flags.system } : {}),
        ...judging,
        ...batched,
        // Under --batch many decks are judged at once so a batch collects their items; bounded, since a
        // batch holds its prompts until it is submitted (memory grows with the decks in flight).
        ...(batchConcurrency !== undefined
          ? { instanceConcurrency: Math.min(batchConcurrency, BATCH_INSTANCE_CONCURRENCY) }
          : {}),
        ...(shard ? { shard } : {}),
        progress: context.progress(),
      });
      if (
        summary.rows.some(
          (row) => row.status === 'failed' || row.status === 'missing_deck' || row.error_count > 0,
        )
      ) {
        reportExitCode(1);
      }
      if (flags.json) {
        context.printJson({ summary_file: summaryFile, ...summary });
        return;
      }
      context.print(`system ${flags.system ?? basename(resultsDir)}, judge ${judge.id}`);
      // A total that depends on unjudged items prints n/a with the count (the summary keeps the numbers).
      for (const row of summary.rows) {
        const notes = [
          ...(row.not_judged_count > 0 ? [`${row.not_judged_count} items not judged`] : []),
          ...(row.error_count > 0 ? [`${row.error_count} unanswered`] : []),
        ];
        const paper = row.not_judged_count > 0 ? null : row.paper_total_percent;
        context.print(
          `${row.status.padEnd(12)} ${row.instance_id}${row.error ? `: ${row.error}` : `  paper ${percent(paper)}, PresentBench ${percent(row.presentbench_total_percent)}${notes.length ? ` (${notes.join(', ')})` : ''}`}`,
        );
      }
      for (const [category, means] of Object.entries(summary.categories)) {
        const unjudged = summary.rows.filter(
          (row) => row.category === category && row.not_judged_count > 0 && row.paper_total_percent !== null,
        ).length;
        const paper = unjudged > 0 ? null : means.paper_mean_percent;
        context.print(
          `${category}: paper ${percent(paper)}, PresentBench ${percent(means.presentbench_mean_percent)} (${means.count} instances${unjudged > 0 ? `, ${unjudged} with items not judged` : ''})`,
        );
      }
      context.print(`wrote ${summaryFile}`);
    });
}
