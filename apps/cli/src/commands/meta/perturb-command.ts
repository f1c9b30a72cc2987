import { resolve } from 'node:path';
import { plural, UsageError } from '@xsb/core';
import {
  checkSeverities,
  DEFAULT_PERTURBATION_SEED,
  DEFAULT_SEVERITIES,
  PERTURBATION_KINDS,
  type PerturbationRecord,
  perturbDeck,
  perturbRun,
} from '@xsb/meta';
import type { Command } from 'commander';
import type { CliContext } from '../../cli-context';
import { choiceList, collectList, configFlags, integerFlag, requireExistingPath } from '../../cli-options';
import { reportExitCode } from '../../exit-code';

interface PerturbFlags {
  deck?: string;
  data?: string;
  run?: string;
  out: string;
  kinds?: string[];
  severity?: string[];
  seed?: string;
  json?: boolean;
}

function severities(values: string[] | undefined): number[] {
  if (!values || values.length === 0) return [...DEFAULT_SEVERITIES];
  const numbers = values.map(Number);
  try {
    return checkSeverities(
      numbers.map((value, index) => (values[index]!.trim() === '' ? Number.NaN : value)),
    );
  } catch (error) {
    throw new UsageError(`--severity: ${(error as Error).message}`);
  }
}

/** `xsb meta perturb`: damaged copies of one deck (or of every deck of a run), each change recorded. */
export function registerPerturb(meta: Command, context: CliContext): void {
  meta
    .command('perturb')
    .description(
      'write controlled perturbations of a deck: DIR/<kind>/<severity>/<name>.pptx|pdf and DIR/perturbations.jsonl',
    )
    .option('--deck <file>', 'the deck to perturb (.pptx, or .pdf for the page-level kinds)')
    .option('--data <dir>', 'with --run instead of --deck: data folder (default: config dataDir)')
    .option(
      '--run <name>',
      'perturb every deck of this run, each into DIR/<system>/<condition>/<audience>/<case>/',
    )
    .requiredOption('--out <dir>', 'output folder')
    .option('--kinds <list>', `kinds (default all): ${PERTURBATION_KINDS.join(', ')}`, collectList)
    .option(
      '--severity <list>',
      `shares of eligible units changed, in (0, 1] (default ${DEFAULT_SEVERITIES.join(',')})`,
      collectList,
    )
    .option('--seed <n>', `random seed (default ${DEFAULT_PERTURBATION_SEED})`)
    .option('--json', 'print the records as JSON')
    .action(async (flags: PerturbFlags) => {
      const kinds = choiceList('--kinds', flags.kinds, PERTURBATION_KINDS);
      const chosen = severities(flags.severity);
      const seed = integerFlag('--seed', flags.seed, DEFAULT_PERTURBATION_SEED, 0);
      if (Boolean(flags.deck) === Boolean(flags.run))
        throw new UsageError('give either --deck FILE or --run NAME (with --data)');
      const outDir = resolve(context.io.cwd, flags.out);
      const common = { outDir, seed, severities: chosen, ...(kinds ? { kinds } : {}) };
      let records: PerturbationRecord[];
      const failures: Array<{ where: string; error: string }> = [];
      if (flags.deck) {
        const deck = requireExistingPath('--deck', resolve(context.io.cwd, flags.deck));
        records = (await perturbDeck({ ...common, deck })).records;
      } else {
        const { config } = context.loadConfig(configFlags({ data: flags.data, run: flags.run }));
        const result = await perturbRun({
          ...common,
          dataDir: resolve(context.io.cwd, config.dataDir),
          run: config.run,
        });
        records = result.records;
        failures.push(...result.failures);
      }
      const errors = records.filter((record) => record.error);
      if (errors.length > 0 || failures.length > 0) reportExitCode(1);
      if (flags.json) {
        context.printJson({ out: outDir, records, failures });
        return;
      }
      for (const record of records) {
        const what = record.error
          ? `FAILED ${record.error}`
          : record.skipped
            ? `skipped: ${record.skipped}`
            : `${record.changed_units}/${record.eligible_units} units, ${record.slide_count_before} → ${record.slide_count_after} slides: ${record.output}`;
        context.print(
          `${record.deck.padEnd(24)} ${record.kind.padEnd(17)} ${String(record.severity).padEnd(5)} ${what}`,
        );
      }
      for (const failure of failures) context.print(`failed  ${failure.where}: ${failure.error}`);
      const written = records.filter((record) => record.output).length;
      context.print(
        `${plural(written, 'perturbed deck')} written, ${records.filter((record) => record.skipped).length} skipped, ${errors.length + failures.length} failed; records in ${resolve(outDir, 'perturbations.jsonl')}${flags.run ? ' (one per deck folder)' : ''}`,
      );
    });
}
