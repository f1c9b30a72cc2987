import { relative } from 'node:path';
import { plural, progressListener } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  collectList,
  integerFlag,
  judgedStage,
  requireExistingPath,
} from '../../cli-options';
import { reportExitCode } from '../../exit-code';

interface RankFlags extends BatchFlags {
  data?: string;
  run?: string;
  judge?: string;
  k?: string;
  pairwise?: boolean;
  system?: string[];
  case?: string[];
  audience?: string[];
  seed?: string;
  resamples?: string;
  json?: boolean;
}

export const RANK_DESCRIPTION =
  "the ranking judge: a judge ranks each case's decks in k rotated orders (Borda), or every pair both ways (--pairwise: Bradley–Terry, swap disagreement)";

export function registerRankCommand(program: Command, context: CliContext): void {
  const command = program
    .command('rank')
    .description(RANK_DESCRIPTION)
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'run name (default: config run)')
    .option(
      '--judge <spec>',
      'lexical (offline), anthropic:<model>, openai:<model>, replay:STORE or record:STORE',
    )
    .option('--k <n>', 'orders per case and audience (default 3)')
    .option(
      '--pairwise',
      'every pair of decks in both orders instead, with Bradley–Terry strengths per system',
    )
    .option(
      '--system <id>',
      'only these systems <generator>__<condition> (repeatable, comma list)',
      collectList,
    )
    .option('--case <label>', 'only these cases (repeatable, comma list)', collectList)
    .option('--audience <name>', 'only these audiences (repeatable, comma list)', collectList)
    .option('--seed <n>', 'seed of the orders and the bootstrap (default 1)')
    .option('--resamples <n>', 'bootstrap resamples of the pairwise intervals (default 2000)');
  addBatchFlags(command, '<data>/runs/<run>/batches/')
    .option('--json', 'print the records (and the pairwise summary) as JSON')
    .action(async (flags: RankFlags) => {
      const { config, layout, clientOptions, concurrency } = judgedStage(context, flags, (l, run) =>
        l.batchStateDir(run),
      );
      const dataDir = requireExistingPath('data folder', layout.dataDir);
      const k = integerFlag('--k', flags.k, 3, 1);
      const seed = integerFlag('--seed', flags.seed, 1, 0);
      const resamples = integerFlag('--resamples', flags.resamples, 2000, 1);
      const [{ runRank }, { createJudge }] = await Promise.all([import('@xsb/study'), import('@xsb/llm')]);
      const judge = createJudge(config.judge, { ...clientOptions, stage: 'rank' });
      const result = await runRank({
        dataDir,
        run: config.run,
        judge,
        mode: flags.pairwise ? 'pairwise' : 'listwise',
        k,
        seed,
        resamples,
        ...(flags.system ? { systems: flags.system } : {}),
        ...(flags.case ? { cases: flags.case } : {}),
        ...(flags.audience ? { audiences: flags.audience } : {}),
        ...(concurrency !== undefined ? { concurrency } : {}),
        onEvent: progressListener(context.progress()),
      });
      if (flags.json) context.printJson({ records: result.records, summary: result.summary });
      else {
        context.print(
          `${plural(result.records.length, 'case and audience', 'cases and audiences')} ranked by ${judge.id}${judge.kind === 'offline' ? ' (offline judge: a smoke test, not a ranking of systems)' : ''} → ${relative(context.io.cwd, result.dir) || '.'}`,
        );
        for (const system of result.summary?.systems ?? [])
          context.print(
            `${system.system}: Bradley–Terry log-strength ${system.strength.toFixed(3)}${system.ci_low === null ? '' : ` [${system.ci_low.toFixed(3)}, ${system.ci_high!.toFixed(3)}]`}`,
          );
        if (result.summary?.swap_disagreement != null)
          context.print(
            `position-swap disagreement: ${(result.summary.swap_disagreement * 100).toFixed(1)}% of ${plural(result.summary.pairs, 'pair')}`,
          );
      }
      for (const failure of result.failures) context.warn(`failed: ${failure.where}: ${failure.error}`);
      if (result.failures.length > 0) reportExitCode(1);
    });
}
