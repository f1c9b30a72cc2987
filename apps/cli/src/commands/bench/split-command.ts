import { BenchLayout, DEFAULT_TEST_SHARE, discoverBenchCases, splitCases } from '@xsb/bench';
import { compareCodePoints, plural } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { reportExitCode } from '../../exit-code';
import { benchDataDir, numberFlag, sweepInterruptedRuns } from './bench-shared';

interface SplitFlags {
  data?: string;
  testShare?: string;
  json?: boolean;
}

/** `xsb bench split`: a stored dev/test split for every case that has none. */
export function registerSplitCommand(bench: Command, context: CliContext): void {
  bench
    .command('split')
    .description('give every case without a split a dev or test one, stored in <data>/bench/splits.jsonl')
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--test-share <x>', `share of cases in the test split (default ${DEFAULT_TEST_SHARE})`)
    .option('--json', 'print the split rows as JSON')
    .action(async (flags: SplitFlags) => {
      const testShare = numberFlag('--test-share', flags.testShare, DEFAULT_TEST_SHARE, { min: 0, max: 1 })!;
      const dataDir = benchDataDir(context, flags);
      await sweepInterruptedRuns(context, dataDir);
      const layout = new BenchLayout(dataDir);
      const { cases, failures } = await discoverBenchCases(dataDir);
      const { rows, added } = await splitCases(layout, cases, { testShare });
      if (flags.json) context.printJson({ rows, added: added.map((row) => row.case) });
      else {
        const strata = new Map<string, { dev: number; test: number; added: number }>();
        for (const row of rows) {
          const entry = strata.get(row.stratum) ?? { dev: 0, test: 0, added: 0 };
          entry[row.split] += 1;
          strata.set(row.stratum, entry);
        }
        for (const row of added) strata.get(row.stratum)!.added += 1;
        const test = rows.filter((row) => row.split === 'test').length;
        context.print(
          `${plural(rows.length, 'case')} in ${layout.splitsFile()}: dev ${rows.length - test}, test ${test} (${added.length} assigned now, ${rows.length - added.length} kept as stored)`,
        );
        context.print('');
        context.print('| stratum | dev | test | new |');
        context.print('| --- | ---: | ---: | ---: |');
        for (const [stratum, entry] of [...strata.entries()].sort((a, b) => compareCodePoints(a[0], b[0])))
          context.print(`| ${stratum} | ${entry.dev} | ${entry.test} | ${entry.added} |`);
      }
      for (const failure of failures) context.warn(`failed: ${failure.where}: ${failure.error.message}`);
      if (failures.length > 0) reportExitCode(1);
    });
}
