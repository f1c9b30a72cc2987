import { casesNeeded } from '@xsb/stats';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { integerFlag } from '../../cli-options';
import { numberFlag } from './bench-shared';

interface PowerFlags {
  sd: string;
  effect: string;
  icc?: string;
  perCluster?: string;
  alpha?: string;
  power?: string;
  json?: boolean;
}

export function registerPowerCommand(bench: Command, context: CliContext): void {
  bench
    .command('power')
    .description('how many cases a paired comparison needs to detect an effect')
    .requiredOption('--sd <s>', "sd of the per-case paired difference (a comparison's sd_case_diff)")
    .requiredOption('--effect <e>', 'the difference to detect')
    .option('--icc <r>', 'intra-class correlation of the rows nested in a case (default 0)')
    .option('--per-cluster <m>', 'rows per case, e.g. audiences (default 1)')
    .option('--alpha <a>', 'two-sided significance level (default 0.05)')
    .option('--power <p>', 'power (default 0.8)')
    .option('--json', 'print the result as JSON')
    .action((flags: PowerFlags) => {
      const sd = numberFlag('--sd', flags.sd, undefined, { min: 0, exclusiveMin: true })!;
      const effect = numberFlag('--effect', flags.effect, undefined)!;
      if (effect === 0) numberFlag('--effect', flags.effect, undefined, { min: 0, exclusiveMin: true });
      const icc = numberFlag('--icc', flags.icc, 0, { min: 0, max: 1 })!;
      const perCluster = integerFlag('--per-cluster', flags.perCluster, 1, 1);
      const alpha = numberFlag('--alpha', flags.alpha, 0.05, { min: 0, max: 1, exclusiveMin: true })!;
      const power = numberFlag('--power', flags.power, 0.8, { min: 0, max: 1, exclusiveMin: true })!;
      const result = casesNeeded({ sd, effect, icc, perCluster, alpha, power });
      if (flags.json) {
        context.printJson({ sd, effect, icc, per_cluster: perCluster, alpha, power, ...result });
        return;
      }
      context.print(`cases needed: ${result.cases}`);
      context.print(
        `  n = ⌈((z(1−α/2) + z(power)) · sd / effect)²⌉ = ⌈((${result.z_alpha.toFixed(4)} + ${result.z_power.toFixed(4)}) · ${sd} / ${Math.abs(effect)})²⌉ = ${result.units} independent units`,
      );
      context.print(
        `  design effect 1 + (m − 1)·ICC = 1 + (${perCluster} − 1)·${icc} = ${result.design_effect}; rows = ${result.rows}; cases = ⌈rows / ${perCluster}⌉ = ${result.cases}`,
      );
    });
}
