import { relative, resolve } from 'node:path';
import { plural, UsageError } from '@xsb/core';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { collectList, configFlags, integerFlag, requireExistingPath } from '../../cli-options';

interface CreateFlags {
  data?: string;
  run?: string;
  systems?: string[];
  sample?: string;
  seed?: string;
  strata?: string;
  out?: string;
}

export function registerStudyCreateCommand(study: Command, context: CliContext): void {
  study
    .command('create')
    .description(
      'sample cases stratified by scene (or category) and write a blind study: STUDY/study.json, key.json, slide images and index.html',
    )
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'the run whose decks are compared (default: config run)')
    .option('--systems <ids>', 'systems <generator>__<condition>, two or more (comma list)', collectList)
    .option('--sample <n>', 'cases to sample, stratified by --strata')
    .option('--seed <n>', 'seed of the sample, the audiences and the labels (default 1)')
    .option('--strata <by>', "stratify the sample by the cases' scene (default) or category (PresentBench's)")
    .option('--out <dir>', 'the study folder (new or empty)')
    .action(async (flags: CreateFlags) => {
      if (!flags.out) throw new UsageError('--out STUDY is required (a new or empty folder)');
      if (!flags.systems || flags.systems.length < 2)
        throw new UsageError('--systems needs two or more systems <generator>__<condition>');
      if (flags.sample === undefined) throw new UsageError('--sample N is required');
      const sample = integerFlag('--sample', flags.sample, 0, 1);
      const strata = flags.strata ?? 'scene';
      if (strata !== 'scene' && strata !== 'category')
        throw new UsageError(`--strata must be scene or category, got ${JSON.stringify(strata)}`);
      const seed = integerFlag('--seed', flags.seed, 1, 0);
      const { config, env } = context.loadConfig(configFlags(flags));
      const dataDir = requireExistingPath('data folder', resolve(context.io.cwd, config.dataDir));
      const out = resolve(context.io.cwd, flags.out);
      const { createStudy, STUDY_FILES } = await import('@xsb/study');
      const { study, key } = await createStudy({
        dataDir,
        run: config.run,
        systems: flags.systems,
        sample,
        seed,
        strata,
        out,
        env,
        onProgress: (line) => context.warn(line),
      });
      for (const skipped of key.skipped) context.warn(`skipped case ${skipped.case}: ${skipped.reason}`);
      const shown = relative(context.io.cwd, out) || '.';
      context.print(
        `study ${study.study}: ${plural(study.cases.length, 'case')} × ${key.systems.length} decks in ${shown}/` +
          ` (${key.skipped.length} skipped). Annotators open ${shown}/${STUDY_FILES.page} (or \`xsb view --study ${shown}\`);` +
          ` keep ${STUDY_FILES.key} from them.`,
      );
    });
}
