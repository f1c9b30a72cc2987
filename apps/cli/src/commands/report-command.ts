import { join, resolve } from 'node:path';
import { plural, RunLayout, UsageError } from '@xsb/core';
import type { CliContext } from '../cli-context';
import { configFlags, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

interface ReportFlags {
  html?: boolean;
  data?: string;
  run?: string;
  bench?: string;
  rubric?: string;
  study?: string;
  out?: string;
  thumbnails?: string;
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Checks the flags (usage errors, exit 2, before any work) and builds the one report they name. */
async function runReportCommand(flags: ReportFlags, context: CliContext): Promise<void> {
  if (!flags.html) throw new UsageError('xsb report writes the HTML report: add --html');
  const folders = [flags.bench, flags.rubric, flags.study].filter((flag) => flag !== undefined);
  if (folders.length > 1)
    throw new UsageError('give one of --bench DIR, --rubric DIR, --study DIR or --run NAME, not several');
  if (folders.length > 0 && flags.run !== undefined)
    throw new UsageError('--run names a pipeline run; --bench, --rubric and --study take a folder instead');
  const report = await import('@xsb/report');
  const common = {
    thumbnails: report.parseThumbnailSize(flags.thumbnails),
    env: context.io.env,
  };
  const cwd = context.io.cwd;
  let result: Awaited<ReturnType<typeof report.buildRunReport>>;
  if (flags.study !== undefined) {
    const dir = requireExistingPath('study folder', resolve(cwd, flags.study));
    requireExistingPath(
      'study alignment',
      join(dir, 'align.json'),
      `run xsb study align --study ${flags.study} first`,
    );
    result = await report.buildStudyReport({ dir, out: resolve(cwd, flags.out ?? join(dir, 'align.html')) });
  } else if (flags.bench !== undefined) {
    const dir = requireExistingPath('bench run folder', resolve(cwd, flags.bench));
    for (const file of ['run.json', 'summary.json'])
      requireExistingPath(`bench run ${file}`, join(dir, file), 'give a folder of <data>/bench/runs/');
    result = await report.buildBenchReport({
      dir,
      out: resolve(cwd, flags.out ?? join(dir, 'report.html')),
      ...common,
    });
  } else if (flags.rubric !== undefined) {
    const dir = requireExistingPath('rubric results folder', resolve(cwd, flags.rubric));
    if ((await report.findRubricSummaries(dir)).length === 0)
      throw new UsageError(
        `no xsb_rubric_summary_<judge>.json under ${dir}; run xsb rubric run --results ${dir} first`,
      );
    result = await report.buildRubricReport({
      dir,
      out: resolve(cwd, flags.out ?? join(dir, 'report.html')),
      ...common,
    });
  } else {
    const { config } = context.loadConfig(configFlags(flags));
    const dataDir = resolve(cwd, config.dataDir);
    const summaryDir = new RunLayout(dataDir).summaryDir(config.run);
    requireExistingPath(
      'run summary',
      join(summaryDir, 'summary.json'),
      `run xsb aggregate --data ${config.dataDir} --run ${config.run} first`,
    );
    result = await report.buildRunReport({
      dataDir,
      run: config.run,
      out: resolve(cwd, flags.out ?? join(summaryDir, 'report.html')),
      ...common,
    });
  }
  for (const problem of result.problems) context.warn(`problem: ${problem}`);
  const thumbs = result.thumbnails;
  const decks =
    thumbs.decks > 0
      ? `; ${plural(thumbs.decks, 'deck')}: thumbnails ${thumbs.rendered} rendered, ${thumbs.cached} cached, ${thumbs.without} without`
      : '';
  context.print(`report: ${result.file} (${megabytes(result.bytes)}${decks})`);
  if (result.problems.length > 0) reportExitCode(1);
}

/** `xsb report --html`: the self-contained HTML report of a pipeline run, a bench run or rubric results. */
export const reportCommand: CommandModule = {
  name: 'report',
  register(program, context) {
    program
      .command('report')
      .description(
        'write one self-contained HTML report (plots, tables, slide drill-down) of a run, bench run or rubric results',
      )
      .option('--html', 'write HTML (the only format; required)')
      .option('--data <dir>', 'data folder of a pipeline run (default: config dataDir)')
      .option('--run <name>', 'pipeline run name (default: config run)')
      .option('--bench <dir>', 'a bench run folder (<data>/bench/runs/<run id>) instead of a pipeline run')
      .option('--rubric <dir>', 'a rubric results folder (with xsb_rubric_summary_<judge>.json) instead')
      .option(
        '--study <dir>',
        'a study folder with align.json (xsb study align): the alignment report, align.html',
      )
      .option('--out <file>', 'output file (default: summary/report.html of the run, or report.html in DIR)')
      .option('--thumbnails <size>', 'slide thumbnails: off, small (320 px, default) or large (800 px)')
      .action(async (flags: ReportFlags) => {
        await runReportCommand(flags, context);
      });
  },
};
