import { resolve } from 'node:path';
import { readJson, UsageError, writeFileAtomic } from '@xsb/core';
import { formatScoresCsv, rubricRunSummarySchema, scoresFromRunSummaries } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';
import { choice } from './rubric-flags';

export function registerExportScores(rubric: Command, context: CliContext): void {
  rubric
    .command('export-scores')
    .description(
      'per-instance totals of `rubric run` summaries as sample_id,system,score CSV (input of `align`)',
    )
    .requiredOption(
      '--summary <system=file>',
      'a run summary (xsb_rubric_summary_<judge>.json) and the system it scored; repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--metric <name>', 'paper (default) | presentbench')
    .option('--out <file>', 'write the CSV here instead of printing it')
    .action(async (flags: { summary: string[]; metric?: string; out?: string }) => {
      const metric = choice(flags.metric, ['paper', 'presentbench'] as const, '--metric', 'paper');
      const summaries = [];
      for (const entry of flags.summary) {
        const split = entry.indexOf('=');
        if (split <= 0) throw new UsageError(`--summary must look like <system>=<file>, got "${entry}"`);
        const file = requireExistingPath('--summary', resolve(context.io.cwd, entry.slice(split + 1)));
        summaries.push({
          system: entry.slice(0, split),
          summary: await readJson(file, rubricRunSummarySchema),
        });
      }
      const csv = formatScoresCsv(scoresFromRunSummaries(summaries, metric));
      if (flags.out) {
        const out = resolve(context.io.cwd, flags.out);
        await writeFileAtomic(out, csv);
        context.print(`wrote ${out}`);
      } else context.io.stdout.write(csv);
    });
}
