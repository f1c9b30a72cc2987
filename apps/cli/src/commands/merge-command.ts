import { resolve } from 'node:path';
import { mergeRunShards } from '@xsb/bench';
import { plural } from '@xsb/core';
import type { CommandModule } from '../command-module';

interface MergeFlags {
  into: string;
  json?: boolean;
}

/** `xsb merge --into D SHARD_DIR…`: shard data folders into the one tree an unsharded run writes. */
export const mergeCommand: CommandModule = {
  name: 'merge',
  register(program, context) {
    program
      .command('merge')
      .description(
        'combine the data folders of --shard i/n runs into one, identical to the unsharded run (docs/ci-matrix.md)',
      )
      .argument('<shard-dir...>', 'the data folder of each shard, in any order')
      .requiredOption(
        '--into <dir>',
        'the merged data folder (created, or merged into: the same rules apply)',
      )
      .option('--json', 'print what was merged as JSON')
      .addHelpText(
        'after',
        `
Rules, checked for every file before anything is written:
  a path several shards hold with the same bytes is copied once; the same path with other
  bytes is an error naming both files (nothing is written); usage ledgers, the bench test
  ledger and record mode's pending prompts are concatenated (ordered by time, then text; a
  shard merged before adds nothing); per-shard deck batch summaries and rubric run summaries
  become the unsharded file once all n shards are there; lock folders and temp files are
  never copied. Merging again, or merging into a folder that holds data, follows the same rules.`,
      )
      .action(async (shardDirs: string[], flags: MergeFlags) => {
        const into = resolve(context.io.cwd, flags.into);
        const report = await mergeRunShards({
          into,
          shards: shardDirs.map((dir) => resolve(context.io.cwd, dir)),
        });
        if (flags.json) {
          context.printJson({ into, ...report });
          return;
        }
        context.print(
          `merged ${plural(shardDirs.length, 'shard folder')} into ${into}: ${plural(report.written, 'file')} written, ${report.identical} already identical, ${plural(report.skipped.length, 'lock/temp path')} left out`,
        );
        for (const file of report.concatenated)
          context.print(`  concatenated ${file.path}: ${plural(file.lines, 'line')} (${file.added} new)`);
        for (const file of report.combined)
          context.print(`  combined ${file.path} from ${plural(file.parts.length, 'shard file')}`);
      });
  },
};
