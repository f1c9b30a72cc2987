import { resolve } from 'node:path';
import { benchLayoutOfRunDir, markInterruptedRuns, rerenderBenchReport } from '@xsb/bench';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';

export function registerReportCommand(bench: Command, context: CliContext): void {
  bench
    .command('report <dir>')
    .description('re-render report.md of a bench run from its summary.json and run.json (byte-identical)')
    .option('--print', 'also print the report')
    .action(async (dir: string, flags: { print?: boolean }) => {
      const runDir = requireExistingPath('bench run folder', resolve(context.io.cwd, dir));
      for (const runId of await markInterruptedRuns(benchLayoutOfRunDir(runDir)))
        context.warn(`bench run ${runId}: its process is gone; marked failed (interrupted)`);
      const { file, report } = await rerenderBenchReport(runDir);
      if (flags.print) context.print(report.trimEnd());
      context.print(`report: ${file}`);
    });
}
