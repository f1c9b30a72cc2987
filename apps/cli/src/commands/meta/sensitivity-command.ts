import { resolve } from 'node:path';
import {
  DEFAULT_EVALUATOR_FAMILIES,
  DEFAULT_META_SEED,
  EVALUATOR_FAMILIES,
  type EvaluatorFamily,
  runSensitivity,
} from '@xsb/meta';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import {
  choiceList,
  collectList,
  configFlags,
  integerFlag,
  modelClientOptions,
  parseTauA,
  requireExistingPath,
} from '../../cli-options';
import { reportExitCode } from '../../exit-code';

interface SensitivityFlags {
  data?: string;
  run?: string;
  perturbations: string[];
  judge?: string;
  instance?: string[];
  evaluators?: string[];
  out?: string;
  seed?: string;
  resamples?: string;
  tauA?: string;
  json?: boolean;
}

const FAMILIES: readonly EvaluatorFamily[] = EVALUATOR_FAMILIES;

/** `xsb meta sensitivity`: which damage each evaluator notices, for the judge and settings in use. */
export function registerSensitivity(meta: Command, context: CliContext): void {
  meta
    .command('sensitivity')
    .description(
      'score the originals of a run and their perturbations with every evaluator; write meta/sensitivity.json and meta/report.md',
    )
    .option('--data <dir>', 'data folder (default: config dataDir)')
    .option('--run <name>', 'the run whose decks were perturbed (default: config run)')
    .requiredOption(
      '--perturbations <dirs...>',
      'folders holding perturbations.jsonl (from xsb meta perturb)',
    )
    .option(
      '--judge <spec>',
      'lexical (offline, default), anthropic:<model>, openai:<model>, replay:<store>, record:<store>',
    )
    .option(
      '--instance <file>',
      'a rubric instance whose id is a case label (repeatable; <data>/rubric/ is searched too)',
      collectList,
    )
    .option(
      '--evaluators <list>',
      `evaluator families: ${FAMILIES.join(', ')} (default ${DEFAULT_EVALUATOR_FAMILIES.join(', ')}; design renders every deck)`,
      collectList,
    )
    .option(
      '--out <dir>',
      'where sensitivity.json, report.md and scores.jsonl go (default <data>/runs/<run>@meta/meta/)',
    )
    .option('--seed <n>', `bootstrap seed (default ${DEFAULT_META_SEED})`)
    .option('--resamples <n>', 'bootstrap resamples (default 2000)')
    .option('--tau-a <x>', 'audience weight threshold for included probes')
    .option('--json', 'print sensitivity.json')
    .action(async (flags: SensitivityFlags) => {
      const families = choiceList('--evaluators', flags.evaluators, FAMILIES);
      const seed = integerFlag('--seed', flags.seed, DEFAULT_META_SEED, 0);
      const resamples = integerFlag('--resamples', flags.resamples, 2000, 1);
      const tauA = flags.tauA === undefined ? undefined : parseTauA(flags.tauA);
      const perturbations = flags.perturbations.map((path) =>
        requireExistingPath('--perturbations', resolve(context.io.cwd, path)),
      );
      const instances = (flags.instance ?? []).map((file) =>
        requireExistingPath('--instance', resolve(context.io.cwd, file)),
      );
      const { config, env } = context.loadConfig(configFlags(flags));
      const dataDir = resolve(context.io.cwd, config.dataDir);
      const { result, files } = await runSensitivity({
        dataDir,
        run: config.run,
        perturbations,
        judge: config.judge,
        instances,
        seed,
        resamples,
        ...(tauA !== undefined ? { tauA } : {}),
        ...(families ? { families } : {}),
        ...(flags.out ? { outDir: resolve(context.io.cwd, flags.out) } : {}),
        ...modelClientOptions(context, config, env),
      });
      if (result.failures.length > 0) reportExitCode(1);
      if (flags.json) {
        context.printJson(result);
        return;
      }
      const offline = result.offline ? ' (offline: no model)' : '';
      context.print(
        `judge ${result.judge}${offline}: ${result.original_decks} original and ${result.perturbed_decks} perturbed decks of run ${result.run}`,
      );
      for (const row of result.summary.filter(
        (item) => item.expected === 'lower' && item.sensitivity.n > 0,
      )) {
        const share = row.sensitivity.share === null ? '–' : row.sensitivity.share.toFixed(2);
        context.print(
          `  ${row.evaluator.padEnd(30)} ${row.kind.padEnd(17)} sensitivity ${share} [${row.sensitivity.ci_low?.toFixed(2)}, ${row.sensitivity.ci_high?.toFixed(2)}] n=${row.sensitivity.n}${row.mark === 'real' ? '  real' : row.mark === 'length_only' ? '  length only' : ''}`,
        );
      }
      for (const failure of result.failures) context.print(`failed  ${failure.where}: ${failure.error}`);
      context.print(`report: ${files.report}`);
      context.print(`sensitivity: ${files.sensitivity}`);
    });
}
