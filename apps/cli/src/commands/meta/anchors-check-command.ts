import { resolve } from 'node:path';
import { DEFAULT_MIN_KAPPA } from '@xsb/bench';
import { checkAnchors } from '@xsb/meta';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { configFlags, modelClientOptions, numberFlag } from '../../cli-options';
import { reportExitCode } from '../../exit-code';

interface CheckFlags {
  data?: string;
  judge?: string;
  id?: string;
  minKappa?: string;
  json?: boolean;
}

/** `xsb meta anchors check`: re-score the anchors with a judge and compare with the frozen verdicts. */
export function registerAnchorsCheck(anchors: Command, context: CliContext): void {
  anchors
    .command('check')
    .description(
      're-score the anchor set with a judge; agreement with the frozen verdicts (exit 1 when kappa is below --min-kappa)',
    )
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--judge <spec>', 'the judge to check (default: config judge)')
    .option('--id <name>', 'anchor set id (needed when there are several)')
    .option('--min-kappa <x>', `kappa needed to pass (default ${DEFAULT_MIN_KAPPA})`)
    .option('--json', 'print the check result')
    .action(async (flags: CheckFlags) => {
      const minKappa = numberFlag('--min-kappa', flags.minKappa, DEFAULT_MIN_KAPPA, -1, 1);
      const { config, env } = context.loadConfig(configFlags(flags));
      const { check, file } = await checkAnchors({
        dataDir: resolve(context.io.cwd, config.dataDir),
        judge: config.judge,
        minKappa,
        ...(flags.id ? { id: flags.id } : {}),
        ...modelClientOptions(context, config, env),
      });
      if (!check.passed) reportExitCode(1);
      if (flags.json) {
        context.printJson(check);
        return;
      }
      const kappa = check.kappa === null ? 'undefined' : check.kappa.toFixed(3);
      const agreement = check.agreement === null ? '–' : check.agreement.toFixed(3);
      context.print(
        `anchor set ${check.anchor_set} (frozen by ${check.frozen_judge}) checked with ${check.judge}: kappa ${kappa}, agreement ${agreement}, n=${check.n}`,
      );
      for (const row of check.classes)
        context.print(
          `  ${row.class.padEnd(16)} n=${row.n} kappa ${row.kappa === null ? 'undefined' : row.kappa.toFixed(3)}`,
        );
      context.print(`${check.passed ? 'PASSED' : 'NOT PASSED'}: ${check.reason}`);
      context.print(`written: ${file}`);
    });
}
