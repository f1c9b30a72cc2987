import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';

export function registerStudyImportCommand(study: Command, context: CliContext): void {
  study
    .command('import')
    .description(
      'check downloaded answer files (<annotator>.jsonl) against the study and file them in STUDY/annotations/',
    )
    .argument('<files...>', 'answer files downloaded from the study page')
    .option('--study <dir>', 'the study folder (default: the current folder)')
    .action(async (files: string[], flags: { study?: string }) => {
      const dir = resolve(context.io.cwd, flags.study ?? '.');
      const { importAnnotations } = await import('@xsb/study');
      const imported = await importAnnotations(
        dir,
        files.map((file) => resolve(context.io.cwd, file)),
      );
      for (const answers of imported)
        context.print(
          `${answers.annotator}: ${answers.lines.length} answers → ${relative(context.io.cwd, dir) || '.'}/annotations/${answers.annotator}.jsonl`,
        );
    });
}
