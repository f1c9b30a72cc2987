import type { CommandModule } from '../command-module';
import { registerAlign } from './rubric/align-subcommand';
import { registerCheck } from './rubric/check-subcommand';
import { registerEval } from './rubric/eval-subcommand';
import { registerExportScores } from './rubric/export-scores-subcommand';
import { registerExport } from './rubric/export-subcommand';
import { registerHolistic } from './rubric/holistic-subcommand';
import { registerRun } from './rubric/run-subcommand';
import { registerScore } from './rubric/score-subcommand';

/** `xsb rubric …`: the PresentBench checklist evaluator (one file per subcommand under `rubric/`). */
export const rubricCommand: CommandModule = {
  name: 'rubric',
  register(program, context) {
    const rubric = program
      .command('rubric')
      .description('PresentBench-compatible checklist evaluation of decks');
    registerEval(rubric, context);
    registerRun(rubric, context);
    registerScore(rubric, context);
    registerExport(rubric, context);
    registerAlign(rubric, context);
    registerExportScores(rubric, context);
    registerCheck(rubric, context);
    registerHolistic(rubric, context);
  },
};
