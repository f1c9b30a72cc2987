import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { emptyProbeBankWarnings, plural, progressListener, UsageError } from '@xsb/core';
import { createJudge } from '@xsb/llm';
import {
  createUtilityJudge,
  loadAudienceProfiles,
  WEIGHT_DEFAULTS,
  type WeightsRow,
  weighRun,
} from '@xsb/weights';
import type { CliContext } from '../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  collectList,
  discoverSelectedCases,
  integerFlag,
  judgedStage,
  SHARD_OPTION,
  shardFlag,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';

interface WeightsFlags extends BatchFlags {
  data?: string;
  shard?: string;
  case?: string[];
  audience?: string[];
  audiences?: string;
  judge?: string;
  k?: string;
  batchSize?: string;
  force?: boolean;
  json?: boolean;
}

/** `xsb weights`: stage 3, utility weights of every probe bank for each audience. */
export const weightsCommand: CommandModule = {
  name: 'weights',
  register(program, context) {
    const command = program
      .command('weights')
      .description('stage 3: write <data>/probes/<case>/weights/<audience>.jsonl for every case and audience')
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--case <id>', 'only these cases (repeatable or comma-separated)', collectList)
      .option(
        '--audience <id>',
        "only these audiences (repeatable or comma-separated; default: each case's valid_audiences)",
        collectList,
      )
      .option(
        '--audiences <file>',
        'extra audience profiles (JSON or YAML list of {id, description, lexical?})',
      )
      .option(
        '--judge <spec>',
        'lexical (offline, default) or anthropic:<model>, openai:<model>, replay:<store.jsonl>',
      )
      .option('--k <n>', `independent judgments per probe and audience (default ${WEIGHT_DEFAULTS.k})`)
      .option('--batch-size <n>', `probes per judge call (default ${WEIGHT_DEFAULTS.batchSize})`)
      .option(...SHARD_OPTION)
      .option('--force', 'redo weights that are already finished');
    addBatchFlags(command, '<data>/batches/')
      .option('--json', 'print the result rows as JSON')
      .action((flags: WeightsFlags) => runWeights(context, flags));
  },
};

/** `--audiences` profiles; an `--audience` none of them knows is a usage error. */
export async function audienceProfiles(
  context: CliContext,
  flags: { audiences?: string; audience?: string[] },
) {
  const profiles = await loadAudienceProfiles(
    flags.audiences ? resolve(context.io.cwd, flags.audiences) : undefined,
  );
  const unknown = (flags.audience ?? []).filter((id) => !profiles.has(id));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown audience ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${[...profiles.keys()].join(', ')}; add profiles with --audiences <file>)`,
    );
  return profiles;
}

/** The stage's settings from the flags `xsb weights` and `xsb plan weights` share; usage errors first. */
export function weightSettings(flags: { k?: string; batchSize?: string; force?: boolean }) {
  return {
    k: integerFlag('--k', flags.k, WEIGHT_DEFAULTS.k, 1),
    batchSize: integerFlag('--batch-size', flags.batchSize, WEIGHT_DEFAULTS.batchSize, 1),
    force: Boolean(flags.force),
  };
}

async function runWeights(context: CliContext, flags: WeightsFlags): Promise<void> {
  const { k, ...settings } = weightSettings(flags);
  const shard = shardFlag(flags.shard);
  const profiles = await audienceProfiles(context, flags);
  const { config, layout, clientOptions, concurrency } = judgedStage(context, flags, (l) =>
    l.batchStateDir(),
  );
  const judge = createUtilityJudge(createJudge(config.judge, clientOptions));
  const discovered = await discoverSelectedCases(layout.dataDir, flags.case, shard);
  const rows = await weighRun(layout, discovered, {
    judge,
    profiles,
    ...(flags.audience ? { audiences: flags.audience } : {}),
    k,
    ...settings,
    ...(concurrency !== undefined ? { concurrency } : {}),
    onEvent: progressListener(context.progress()),
  });
  printWeightRows(context, rows, `judge ${judge.id}, k ${k}`, Boolean(flags.json));
  const withBank = discovered.cases.filter((sourceCase) => existsSync(layout.probesFile(sourceCase.caseId)));
  for (const line of await emptyProbeBankWarnings(
    layout,
    withBank.map((sourceCase) => sourceCase.caseId),
  ))
    context.warn(line);
  if (rows.some((row) => row.status === 'failed')) reportExitCode(1);
}

/** One row per case × audience, as a table (with errors) or as JSON. */
function printWeightRows(
  context: CliContext,
  rows: readonly WeightsRow[],
  judged: string,
  json: boolean,
): void {
  if (json) context.printJson(rows);
  else {
    printTable(
      context.print,
      ['case', 'audience', 'rows', 'failures', 'high_variance', 'status'],
      rows.map((row) => [
        row.caseLabel,
        row.audience,
        String(row.rows),
        String(row.failures),
        String(row.highVariance),
        row.status,
      ]),
    );
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    context.print(
      `${plural(rows.length, 'case-audience pair')}: ${count('complete')} weighted, ${count('skipped')} skipped, ${count('failed')} failed (${judged})`,
    );
    for (const row of rows)
      if (row.error) context.warn(`ERROR: ${row.caseLabel}/${row.audience}: ${row.error}`);
  }
}
