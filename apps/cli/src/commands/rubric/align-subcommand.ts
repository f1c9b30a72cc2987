import { basename, resolve } from 'node:path';
import { alignWithHumans, humanAgreement, readHumanRankings, readSystemScores } from '@xsb/rubric';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { integerFlag, optionalIntegerFlag, requireExistingPath } from '../../cli-options';

interface AlignFlags {
  human: string;
  scores: string[];
  seed?: string;
  resamples?: string;
  json?: boolean;
}

export function registerAlign(rubric: Command, context: CliContext): void {
  rubric
    .command('align')
    .description(
      'mean per-sample Spearman rho between evaluator scores and human rankings, with a bootstrap interval',
    )
    .requiredOption('--human <file>', 'rankings.csv: sample_id, system, rank (1 = best), optional annotator')
    .requiredOption(
      '--scores <name=file>',
      'evaluator scores (CSV sample_id, system, score or JSON array); repeatable, e.g. presentbench=a.csv',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--seed <n>', 'bootstrap seed (default 20260307)')
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--json', 'print the alignment table as JSON')
    .action(async (flags: AlignFlags) => {
      const seed = flags.seed === undefined ? undefined : integerFlag('--seed', flags.seed, 0);
      const resamples = optionalIntegerFlag('--resamples', flags.resamples, 1);
      const bootstrap = { ...(seed !== undefined ? { seed } : {}), ...(resamples ? { resamples } : {}) };
      const rankings = await readHumanRankings(
        requireExistingPath('--human', resolve(context.io.cwd, flags.human)),
      );
      const rows = [];
      for (const entry of flags.scores) {
        const split = entry.indexOf('=');
        const name = split > 0 ? entry.slice(0, split) : basename(entry).replace(/\.[^.]+$/, '');
        const file = requireExistingPath(
          '--scores',
          resolve(context.io.cwd, split > 0 ? entry.slice(split + 1) : entry),
        );
        rows.push(alignWithHumans(name, rankings, await readSystemScores(file), bootstrap));
      }
      const human = humanAgreement(rankings, bootstrap);
      if (human) rows.push(human);
      if (flags.json) {
        context.printJson({ evaluators: rows });
        return;
      }
      for (const row of rows) {
        const interval = row.interval
          ? ` [${row.interval.low.toFixed(3)}, ${row.interval.high.toFixed(3)}] (${row.interval.confidence * 100}% bootstrap, seed ${row.interval.seed})`
          : '';
        context.print(
          `${row.evaluator.padEnd(16)} rho ${row.mean_rho === null ? 'n/a' : row.mean_rho.toFixed(3)}${interval}, ${row.samples_used} sample${row.samples_used === 1 ? '' : 's'}${row.samples_skipped.length ? `, ${row.samples_skipped.length} skipped (constant or < 2 systems)` : ''}`,
        );
      }
    });
}
