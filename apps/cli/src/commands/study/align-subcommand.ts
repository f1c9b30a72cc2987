import { join, relative, resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { configFlags, integerFlag, llmClientOptions, requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';

interface AlignFlags {
  study?: string;
  data?: string;
  run?: string;
  rubric?: string;
  judge?: string;
  seed?: string;
  resamples?: string;
  json?: boolean;
}

export function registerStudyAlignCommand(study: Command, context: CliContext): void {
  study
    .command('align')
    .description(
      "every evaluator against the annotators' rankings: mean Spearman ρ with intervals, human ceiling, Kendall's W, rubric dimension ablation → STUDY/align.json and align.md",
    )
    .option('--study <dir>', 'the study folder')
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'the run the study was made from (default: config run)')
    .option('--rubric <dir>', 'rubric instances, id = case label (default <data>/rubric when present)')
    .option(
      '--judge <spec>',
      "the rubric's judge; its evaluations beside each deck are reused (default lexical)",
    )
    .option('--seed <n>', 'bootstrap seed (default 20240607)')
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--json', 'print align.json instead of the tables')
    .action(async (flags: AlignFlags) => {
      if (!flags.study) throw new UsageError('--study STUDY is required');
      const dir = resolve(context.io.cwd, flags.study);
      const { config, env } = context.loadConfig(configFlags(flags));
      const dataDir = requireExistingPath('data folder', resolve(context.io.cwd, config.dataDir));
      const seed = flags.seed === undefined ? undefined : integerFlag('--seed', flags.seed, 0, 0);
      const resamples =
        flags.resamples === undefined ? undefined : integerFlag('--resamples', flags.resamples, 0, 1);
      const rubricDir = flags.rubric ? resolve(context.io.cwd, flags.rubric) : join(dataDir, 'rubric');
      if (flags.rubric) requireExistingPath('--rubric', rubricDir);
      const [{ alignStudy, STUDY_FILES }, { loadInstancesById }, { createJudge }] = await Promise.all([
        import('@xsb/study'),
        import('@xsb/rubric'),
        import('@xsb/llm'),
      ]);
      const instances = await loadInstancesById(rubricDir);
      const judgeSpec = flags.judge ?? 'lexical';
      const { record, report } = await alignStudy({
        dir,
        dataDir,
        run: config.run,
        instances,
        rubricJudge: createJudge(judgeSpec, { ...llmClientOptions(context, config, env), stage: 'rubric' }),
        ...(seed !== undefined ? { seed } : {}),
        ...(resamples !== undefined ? { resamples } : {}),
      });
      if (flags.json) context.printJson(record);
      else {
        context.print(report.trimEnd());
        const shown = relative(context.io.cwd, dir) || '.';
        context.print('');
        context.print(`wrote ${shown}/${STUDY_FILES.align} and ${shown}/${STUDY_FILES.alignReport}`);
      }
      for (const problem of record.problems) context.warn(`failed: ${problem}`);
      if (record.problems.length > 0) reportExitCode(1);
    });
}
