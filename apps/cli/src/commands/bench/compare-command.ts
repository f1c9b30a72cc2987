import { resolve } from 'node:path';
import {
  type BenchComparison,
  type BenchRunsComparison,
  benchLayoutOfRunDir,
  compareBenchRun,
  compareBenchRuns,
  DEFAULT_MIN_KAPPA,
  formatNumber,
  formatPValue,
  markInterruptedRuns,
  type SideComparison,
} from '@xsb/bench';
import { plural, UsageError } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';
import { numberFlag } from './bench-shared';

interface CompareFlags {
  run: string[];
  reference?: string;
  minKappa?: string;
  json?: boolean;
}

const collectRun = (value: string, previous: string[] = []) => [...previous, value];

/** The statistics columns both table forms share. */
function statCells(c: SideComparison) {
  const mcnemar = c.mcnemar ? `${c.mcnemar.b}/${c.mcnemar.c}, ${formatPValue(c.mcnemar.p)}` : '–';
  return `${c.metric} | ${c.n_cases} | ${formatNumber(c.mean_diff)} [${formatNumber(c.ci_low)}, ${formatNumber(c.ci_high)}] | ${mcnemar} | ${formatPValue(c.holm_p)} | ${c.verdict ?? '–'} | ${c.diag ? 'diag' : ''} | ${formatNumber(c.mde)}`;
}

function printWithinRun(context: CliContext, comparisons: readonly BenchComparison[]): void {
  context.print(
    '| kind | B | A | metric | cases | mean diff [95% CI] | McNemar b/c, p | Holm p | verdict | diag | MDE |',
  );
  context.print('| --- | --- | --- | --- | ---: | --- | --- | ---: | --- | --- | ---: |');
  const sideOf = (s: { configuration: string; system_id: string }) => `${s.configuration} · ${s.system_id}`;
  for (const c of comparisons)
    context.print(`| ${c.kind} | ${sideOf(c.b)} | ${sideOf(c.a)} | ${statCells(c)} |`);
}

function printAcrossRuns(context: CliContext, result: BenchRunsComparison): void {
  const side = (s: BenchRunsComparison['a']) =>
    `${s.run_id} (${s.split} split, ${plural(s.cases, 'case')}, pipeline run ${s.pipeline_run}${s.status === 'done' ? '' : `, ${s.status}`})`;
  context.print(`A = bench run ${side(result.a)}`);
  context.print(`B = bench run ${side(result.b)}; difference = B − A, paired over the cases both runs have`);
  for (const c of result.configurations) {
    const judge = (j: BenchRunsComparison['configurations'][number]['judge_a']) =>
      j.model_label ? `${j.id} (model ${j.model_label})` : j.id;
    const judges = c.judges_differ
      ? `judges differ: A ${judge(c.judge_a)}, B ${judge(c.judge_b)}`
      : `judge ${judge(c.judge_a)}`;
    const settings = c.settings_differ.length
      ? `; settings that differ: ${c.settings_differ.join(', ')}`
      : '';
    context.print(`configuration ${c.name}: ${judges}${settings}`);
  }
  if (result.anchor)
    context.print(
      `anchor set "${result.anchor.anchor_set}" (${result.anchor.data_dir}): ${result.anchor.judges
        .map(
          (j) =>
            `${j.judge} ${j.froze ? 'froze it' : `kappa ${j.kappa === null ? 'undefined' : j.kappa.toFixed(3)} over ${j.n} items`}`,
        )
        .join(', ')} (needed kappa >= ${result.min_kappa})`,
    );
  const { probe_banks, weights, decks, rubric_instances } = result.inputs_differ;
  const changed = Object.entries({ probe_banks, weights, decks, rubric_instances }).filter(
    ([, count]) => count > 0,
  );
  if (changed.length)
    context.print(
      `inputs that differ between the runs: ${changed.map(([kind, count]) => `${count} ${kind}`).join(', ')}`,
    );
  context.print('');
  context.print(
    '| configuration | system | metric | cases | mean diff [95% CI] | McNemar b/c, p | Holm p | verdict | diag | MDE |',
  );
  context.print('| --- | --- | --- | ---: | --- | --- | ---: | --- | --- | ---: |');
  for (const c of result.comparisons)
    context.print(`| ${c.configuration} | ${c.system_id} | ${statCells(c)} |`);
}

export function registerCompareCommand(bench: Command, context: CliContext): void {
  bench
    .command('compare')
    .description(
      'the paired comparisons of a bench run (one --run), or of two bench runs over the cases both have (--run A --run B)',
    )
    .requiredOption(
      '--run <dir>',
      'a bench run folder (<data>/bench/runs/<id>); twice to compare two runs',
      collectRun,
    )
    .option('--reference <id>', "one run: pair every system against this one (default: the run's reference)")
    .option(
      '--min-kappa <x>',
      `two runs whose judges differ: the anchor-check kappa both judges need (default ${DEFAULT_MIN_KAPPA})`,
    )
    .option('--json', 'print the comparisons as JSON')
    .action(async (flags: CompareFlags) => {
      if (flags.run.length > 2)
        throw new UsageError(`--run: give one bench run, or two to compare; got ${flags.run.length}`);
      if (flags.run.length === 2 && flags.reference !== undefined)
        throw new UsageError('--reference applies to one run; two runs are compared system by system');
      if (flags.run.length === 1 && flags.minKappa !== undefined)
        throw new UsageError('--min-kappa applies to two runs (--run A --run B)');
      const minKappa = numberFlag('--min-kappa', flags.minKappa, DEFAULT_MIN_KAPPA, { min: -1, max: 1 })!;
      const dirs = flags.run.map((run) =>
        requireExistingPath('bench run folder', resolve(context.io.cwd, run)),
      );
      for (const dir of dirs)
        for (const runId of await markInterruptedRuns(benchLayoutOfRunDir(dir)))
          context.warn(`bench run ${runId}: its process is gone; marked failed (interrupted)`);
      if (dirs.length === 2) {
        const result = await compareBenchRuns(dirs[0]!, dirs[1]!, { minKappa });
        if (flags.json) context.printJson(result);
        else printAcrossRuns(context, result);
        return;
      }
      const { run, comparisons } = await compareBenchRun(
        dirs[0]!,
        flags.reference === undefined ? {} : { reference: flags.reference },
      );
      if (flags.json) {
        context.printJson(comparisons);
        return;
      }
      context.print(
        `bench run ${run.run_id} (${run.split} split, ${plural(run.cases.length, 'case')}; test split opened ${plural(run.test_ledger_count, 'time')}); difference = B − A`,
      );
      context.print('');
      printWithinRun(context, comparisons);
    });
}
