import type { CommandModule } from '../../command-module';
import { registerStudyAlignCommand } from './align-subcommand';
import { registerStudyCreateCommand } from './create-subcommand';
import { registerStudyImportCommand } from './import-subcommand';
import { registerRankCommand } from './rank-command';

export const STUDY_DESCRIPTION =
  'a blind human ranking study of decks, and every evaluator measured against it';

/** `xsb study create|import|align` and `xsb rank`: a blind human ranking study, the ranking judge, the alignment tables. */
export const studyCommand: CommandModule = {
  name: 'study',
  register(program, context) {
    const study = program.command('study').description(STUDY_DESCRIPTION);
    registerStudyCreateCommand(study, context);
    registerStudyImportCommand(study, context);
    registerStudyAlignCommand(study, context);
    registerRankCommand(program, context);
  },
};
