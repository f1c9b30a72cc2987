import { basename, resolve } from 'node:path';
import { UsageError, writeFileAtomic } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { formatScoresCsv, judgeHolistic, runHolistic } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';
import { judgeFrom } from './rubric-flags';

interface HolisticFlags {
  judge?: string;
  instances?: string;
  results?: string;
  system?: string;
  out?: string;
  json?: boolean;
}

export function registerHolistic(rubric: Command, context: CliContext): void {
  rubric
    .command('holistic [deck]')
    .description(
      'PPTEval-style baseline: one call rating content, design and coherence 1-5 (one deck or a results tree)',
    )
    .option('--judge <spec>', 'anthropic:<model>, openai:<model>, replay:<store> (needs a model)')
    .option('--instances <dir>', 'with --results: judge every instance’s deck instead of one deck')
    .option('--results <dir>', 'the generator’s results root')
    .option(
      '--system <name>',
      'with --results: the system name for the scores CSV (default: the results folder name)',
    )
    .option('--out <file>', 'with --results: write sample_id,system,score CSV (0-100) for `align`')
    .option('--json', 'print the scores as JSON')
    .action(async (deckArgument: string | undefined, flags: HolisticFlags) => {
      const batch = flags.instances !== undefined || flags.results !== undefined;
      if (batch === (deckArgument !== undefined))
        throw new UsageError('give a deck, or --instances and --results');
      if (batch && !(flags.instances && flags.results))
        throw new UsageError('--instances and --results go together');
      const judge = judgeFrom(context, flags.judge);
      if (judge.kind === 'offline')
        throw new UsageError('the holistic baseline has no offline judge; pass --judge <provider>:<model>');
      if (!batch) {
        const deckPath = requireExistingPath('deck', resolve(context.io.cwd, deckArgument as string));
        const score = await judgeHolistic(judge.client, await readDeck(deckPath));
        if (flags.json) {
          context.printJson({ deck: deckPath, judge: judge.id, scores: score });
          return;
        }
        context.print(
          `content ${score.content.score}, design ${score.design.score}, coherence ${score.coherence.score}; overall ${score.overall.toFixed(2)} (${score.overall_percent.toFixed(1)} on 0-100)`,
        );
        return;
      }
      const resultsDir = requireExistingPath('--results', resolve(context.io.cwd, flags.results as string));
      const rows = await runHolistic({
        instancesDir: requireExistingPath('--instances', resolve(context.io.cwd, flags.instances as string)),
        resultsDir,
        judge,
      });
      if (rows.some((row) => row.error !== null)) reportExitCode(1);
      const system = flags.system ?? basename(resultsDir);
      const scores = rows.flatMap((row) =>
        row.score ? [{ sample_id: row.instance_id, system, score: row.score.overall_percent }] : [],
      );
      if (flags.out) await writeFileAtomic(resolve(context.io.cwd, flags.out), formatScoresCsv(scores));
      if (flags.json) {
        context.printJson({ judge: judge.id, system, rows });
        return;
      }
      for (const row of rows) {
        context.print(
          `${row.instance_id}: ${row.score ? `${row.score.overall.toFixed(2)} (${row.score.overall_percent.toFixed(1)})` : `failed: ${row.error}`}`,
        );
      }
      if (flags.out) context.print(`wrote ${resolve(context.io.cwd, flags.out)}`);
    });
}
