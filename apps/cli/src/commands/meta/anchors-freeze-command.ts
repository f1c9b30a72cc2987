import { resolve } from 'node:path';
import { plural } from '@xsb/core';
import { DEFAULT_ANCHOR_SIZE, freezeAnchors } from '@xsb/meta';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { configFlags, integerFlag } from '../../cli-options';

interface FreezeFlags {
  data?: string;
  run?: string;
  id?: string;
  size?: string;
  seed?: string;
  force?: boolean;
  json?: boolean;
}

/** `xsb meta anchors freeze`: a small frozen set of decks and their judge's verdicts. */
export function registerAnchorsFreeze(anchors: Command, context: CliContext): void {
  anchors
    .command('freeze')
    .description(
      'store a small anchor set of a run: decks, the verdicts of its judge and the judge id, under <data>/meta/anchors/<id>/',
    )
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'an evaluated run (default: config run)')
    .option('--id <name>', 'anchor set id (default: the run name)')
    .option('--size <n>', `decks in the set (default ${DEFAULT_ANCHOR_SIZE})`)
    .option('--seed <n>', 'sampling seed (default 12)')
    .option('--force', 'replace an existing anchor set of that id')
    .option('--json', 'print anchor_set.json')
    .action(async (flags: FreezeFlags) => {
      const size = integerFlag('--size', flags.size, DEFAULT_ANCHOR_SIZE, 1);
      const seed = integerFlag('--seed', flags.seed, 12, 0);
      const { config } = context.loadConfig(configFlags(flags));
      const { set, file } = await freezeAnchors({
        dataDir: resolve(context.io.cwd, config.dataDir),
        run: config.run,
        size,
        seed,
        force: flags.force ?? false,
        ...(flags.id ? { id: flags.id } : {}),
      });
      if (flags.json) {
        context.printJson(set);
        return;
      }
      context.print(
        `anchor set ${set.id}: ${plural(set.decks.length, 'deck')}, ${plural(set.item_count, 'verdict')} of judge ${set.judge} from run ${set.run}`,
      );
      context.print(`written: ${file}`);
    });
}
