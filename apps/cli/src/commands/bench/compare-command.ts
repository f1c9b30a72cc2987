import { resolve } from 'node:path';
import {
  benchLayoutOfRunDir,
  compareBenchRun,
  formatNumber,
  formatPValue,
  markInterruptedRuns,
} from '@xsb/bench';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';

export function registerCompareCommand(bench: Command, context: CliContext): void {
  bench
    .command('compare')
    .description('the paired comparisons of a bench run, recomputed from per_row.jsonl and run.json')
    .requiredOption('--run <dir>', 'a bench run folder (<data>/bench/runs/<id>)')
    .option('--reference <id>', "pair every system against this one (default: the run's reference)")
    .option('--json', 'print the comparisons as JSON')
    .action(async (flags: { run: string; reference?: string; json?: boolean }) => {
      const runDir = requireExistingPath('bench run folder', resolve(context.io.cwd, flags.run));
      for (const runId of await markInterruptedRuns(benchLayoutOfRunDir(runDir)))
        context.warn(`bench run ${runId}: its process is gone; marked failed (interrupted)`);
      const { run, comparisons } = await compareBenchRun(
        runDir,
        flags.reference === undefined ? {} : { reference: flags.reference },
      );
      if (flags.json) {
        context.printJson(comparisons);
        return;
      }
      context.print(
        `bench run ${run.run_id} (${run.split} split, ${run.cases.length} cases; test split opened ${run.test_ledger_count} time(s)); difference = B − A`,
      );
      context.print('');
      context.print(
        '| kind | B | A | metric | cases | mean diff [95% CI] | McNemar b/c, p | Holm p | verdict | diag | MDE |',
      );
      context.print('| --- | --- | --- | --- | ---: | --- | --- | ---: | --- | --- | ---: |');
      for (const c of comparisons) {
        const sideOf = (s: { configuration: string; system_id: string }) =>
          `${s.configuration} · ${s.system_id}`;
        const mcnemar = c.mcnemar ? `${c.mcnemar.b}/${c.mcnemar.c}, ${formatPValue(c.mcnemar.p)}` : '–';
        context.print(
          `| ${c.kind} | ${sideOf(c.b)} | ${sideOf(c.a)} | ${c.metric} | ${c.n_cases} | ${formatNumber(c.mean_diff)} [${formatNumber(c.ci_low)}, ${formatNumber(c.ci_high)}] | ${mcnemar} | ${formatPValue(c.holm_p)} | ${c.verdict ?? '–'} | ${c.diag ? 'diag' : ''} | ${formatNumber(c.mde)} |`,
        );
      }
    });
}
