import { resolve } from 'node:path';
import {
  compareCodePoints,
  countingProgress,
  emptyProbeBankWarnings,
  mapWithConcurrency,
  plural,
  RunLayout,
  UsageError,
} from '@xsb/core';
import {
  type AudienceWeightsResult,
  createUtilityJudge,
  ensureAudienceWeights,
  loadAudienceProfiles,
  plannedWeightCalls,
  requireProbeBanks,
  WEIGHT_DEFAULTS,
} from '@xsb/weights';
import {
  addBatchFlags,
  type BatchFlags,
  batchOptionsFor,
  collectList,
  configFlags,
  discoverSelectedCases,
  integerFlag,
  llmClientOptions,
  SHARD_OPTION,
  shardFlag,
  stageConcurrency,
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

type WeightsRow = Omit<AudienceWeightsResult, 'status' | 'weightsFile' | 'failuresFile'> & {
  status: AudienceWeightsResult['status'] | 'not_applicable';
};

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
      .action(async (flags: WeightsFlags) => {
        const k = integerFlag('--k', flags.k, WEIGHT_DEFAULTS.k, 1);
        const shard = shardFlag(flags.shard);
        const batchSize = integerFlag('--batch-size', flags.batchSize, WEIGHT_DEFAULTS.batchSize, 1);
        const { config, env } = context.loadConfig(configFlags(flags));
        const profiles = await loadAudienceProfiles(
          flags.audiences ? resolve(context.io.cwd, flags.audiences) : undefined,
        );
        const unknownAudiences = (flags.audience ?? []).filter((id) => !profiles.has(id));
        if (unknownAudiences.length > 0) {
          throw new UsageError(
            `unknown audience ${unknownAudiences.map((id) => JSON.stringify(id)).join(', ')} (known: ${[...profiles.keys()].join(', ')}; add profiles with --audiences <file>)`,
          );
        }
        const dataDir = resolve(context.io.cwd, config.dataDir);
        const layout = new RunLayout(dataDir);
        const batch = batchOptionsFor(context, flags, config, config.judge, layout.batchStateDir());
        const clientOptions = llmClientOptions(context, config, env, batch);
        const judge = createUtilityJudge(config.judge, clientOptions);
        // With --batch, every pair's judgments are asked at once so one batch collects them all.
        const concurrency = stageConcurrency(config.judge, clientOptions, undefined);
        const discovered = await discoverSelectedCases(dataDir, flags.case, shard);
        // Weights before probes is one usage error; a case whose bank is missing among others fails once.
        const withoutBank = requireProbeBanks(
          layout,
          discovered.cases.map((sourceCase) => sourceCase.caseId),
        );
        const cases = discovered.cases.filter((sourceCase) => !withoutBank.includes(sourceCase.caseId));
        const rows = [
          ...discovered.failures.map((failure) =>
            emptyRow(failure.caseId, '-', 'failed', failure.error.message),
          ),
          ...withoutBank.map((caseLabel) =>
            emptyRow(caseLabel, '-', 'failed', 'no probe bank (run `xsb probes` for this case first)'),
          ),
        ];
        // Every pair to weight, then its planned judge calls (batches × k; 0 when finished), so the
        // progress total is exact before the first call.
        const pairs: Array<{ caseLabel: string; audience: string }> = [];
        for (const sourceCase of cases) {
          const valid = sourceCase.metadata.valid_audiences;
          const audiences = flags.audience && flags.audience.length > 0 ? flags.audience : valid;
          for (const audience of audiences) {
            if (!valid.includes(audience))
              rows.push(emptyRow(sourceCase.caseId, audience, 'not_applicable', null));
            else if (!profiles.has(audience))
              rows.push(
                emptyRow(
                  sourceCase.caseId,
                  audience,
                  'failed',
                  `no profile for audience "${audience}" (add it with --audiences <file>)`,
                ),
              );
            else pairs.push({ caseLabel: sourceCase.caseId, audience });
          }
        }
        const options = {
          judge,
          profiles,
          k,
          batchSize,
          force: Boolean(flags.force),
          ...(concurrency !== undefined ? { concurrency } : {}),
        };
        const planned = await Promise.all(
          pairs.map((pair) => plannedWeightCalls(layout, pair.caseLabel, pair.audience, options)),
        );
        const progress = context.progress();
        progress.start(
          'weights',
          planned.reduce((a, b) => a + b, 0),
          { unit: 'judge calls' },
        );
        const weighted = await mapWithConcurrency(
          pairs,
          concurrency ?? 1,
          async ({ caseLabel, audience }, index) => {
            const note = `pair ${index + 1}/${pairs.length} ${caseLabel}/${audience}`;
            const counted = countingProgress(progress);
            const {
              weightsFile: _w,
              failuresFile: _f,
              ...result
            } = await ensureAudienceWeights(layout, caseLabel, audience, {
              ...options,
              progress: counted.reporter,
              progressNote: note,
            });
            // A pair that failed early made fewer calls than planned: the rest is counted, not waited for.
            progress.skip?.(Math.max(0, planned[index]! - counted.counted.done), note);
            return result;
          },
        );
        rows.push(...weighted);
        progress.finish(plural(pairs.length, 'pair'));
        rows.sort((a, b) => compareCodePoints(a.caseLabel, b.caseLabel));
        if (flags.json) context.printJson(rows);
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
            `${plural(rows.length, 'case-audience pair')}: ${count('complete')} weighted, ${count('skipped')} skipped, ${count('failed')} failed (judge ${judge.id}, k ${k})`,
          );
          for (const row of rows)
            if (row.error) context.warn(`ERROR: ${row.caseLabel}/${row.audience}: ${row.error}`);
        }
        for (const line of await emptyProbeBankWarnings(
          layout,
          cases.map((sourceCase) => sourceCase.caseId),
        ))
          context.warn(line);
        if (rows.some((row) => row.status === 'failed')) reportExitCode(1);
      });
  },
};

function emptyRow(
  caseLabel: string,
  audience: string,
  status: WeightsRow['status'],
  error: string | null,
): WeightsRow {
  return { caseLabel, audience, status, rows: 0, failures: 0, highVariance: 0, ...(error ? { error } : {}) };
}
