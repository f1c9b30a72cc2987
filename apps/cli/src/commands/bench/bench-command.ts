import type { CommandModule } from '../../command-module';
import { registerCompareCommand } from './compare-command';
import { registerPowerCommand } from './power-command';
import { registerReportCommand } from './report-command';
import { registerRunCommand } from './run-command';
import { registerSplitCommand } from './split-command';

/** `xsb bench split|run|report|compare|power`: spec 002's discipline on deck evaluations. */
export const benchCommand: CommandModule = {
  name: 'bench',
  register(program, context) {
    const bench = program
      .command('bench')
      .description('stored dev/test splits, run records, paired comparisons, configurations (spec 002)');
    registerSplitCommand(bench, context);
    registerRunCommand(bench, context);
    registerReportCommand(bench, context);
    registerCompareCommand(bench, context);
    registerPowerCommand(bench, context);
  },
};
