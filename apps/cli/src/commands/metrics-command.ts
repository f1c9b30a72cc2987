import { resolve } from 'node:path';
import { RunLayout } from '@xsb/core';
import {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  renderResultsTables,
  rescoreRun,
  runAggregation,
} from '@xsb/metrics';
import { configFlags, integerFlag, parseTauA, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

interface MetricsFlags {
  data?: string;
  run?: string;
  tauA?: string;
  json?: boolean;
}

interface AggregateFlags {
  data?: string;
  run?: string;
  out?: string;
  seed?: string;
  resamples?: string;
  json?: boolean;
}

const fixed = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : value.toFixed(4);

/** `xsb metrics` (stage 6 again, no judge) and `xsb aggregate` (stage 7). */
export const metricsCommand: CommandModule = {
  name: 'metrics',
  register(program, context) {
    program
      .command('metrics')
      .description('stage 6: recompute metrics.json of every finished evaluation of a run (no judge calls)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--tau-a <x>', 'audience weight threshold for included probes (default 0.7)')
      .option('--json', 'print the metric rows as JSON')
      .action(async (flags: MetricsFlags) => {
        const tauA = parseTauA(flags.tauA);
        const { config } = context.loadConfig(configFlags(flags));
        const layout = new RunLayout(resolve(context.io.cwd, config.dataDir));
        const { rows, failures } = await rescoreRun(layout, config.run, { tauA });
        if (flags.json) context.printJson({ rows, failures });
        else {
          context.print(
            'system_id\taudience\tcase\tcoverage\tefficiency_time\tcorrectness\tsafe_efficiency_time',
          );
          for (const row of rows)
            context.print(
              [
                row.system_id,
                row.audience,
                row.case_label,
                fixed(row.coverage),
                fixed(row.efficiency_time),
                fixed(row.correctness),
                fixed(row.safe_efficiency_time),
              ].join('\t'),
            );
          for (const failure of failures) context.warn(`failed: ${failure.message}`);
          context.print(`${rows.length} evaluation(s) rescored at tau_a ${tauA}`);
        }
        if (failures.length > 0) reportExitCode(1);
      });

    program
      .command('aggregate')
      .description(
        'stage 7: mean and bootstrap 95% interval per (system, audience) into summary.json/csv and report.md',
      )
      .argument('[roots...]', 'folders to scan for metrics (default: the run folder)')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--run <name>', 'run name (default: config run)')
      .option('--out <dir>', 'output folder (default <run>/summary)')
      .option('--seed <n>', `bootstrap seed (default ${DEFAULT_BOOTSTRAP_SEED})`)
      .option('--resamples <n>', `bootstrap resamples (default ${DEFAULT_BOOTSTRAP_RESAMPLES})`)
      .option('--json', 'print summary.json instead of the tables')
      .action(async (roots: string[], flags: AggregateFlags) => {
        const seed = integerFlag('--seed', flags.seed, DEFAULT_BOOTSTRAP_SEED, 0);
        const resamples = integerFlag('--resamples', flags.resamples, DEFAULT_BOOTSTRAP_RESAMPLES, 1);
        const { config } = context.loadConfig(configFlags(flags));
        const layout = new RunLayout(resolve(context.io.cwd, config.dataDir));
        const runDir = layout.runDir(config.run);
        const scanRoots = (
          roots.length > 0 ? roots.map((root) => resolve(context.io.cwd, root)) : [runDir]
        ).map((root) => requireExistingPath('folder', root));
        const outDir = flags.out ? resolve(context.io.cwd, flags.out) : layout.summaryDir(config.run);
        const { summary, files } = await runAggregation(scanRoots, outDir, { seed, resamples });
        if (flags.json) context.printJson(summary);
        else {
          for (const line of renderResultsTables(summary)) context.print(line);
          context.print(`wrote ${files.json}, ${files.csv}, ${files.report}`);
        }
        for (const entry of summary.skipped)
          context.warn(`skipped ${resolve(outDir, entry.file)}: ${entry.reason}`);
        if (summary.skipped.length > 0) reportExitCode(1);
      });
  },
};
