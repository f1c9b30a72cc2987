import { resolve } from 'node:path';
import { compareCodePoints, RunLayout, UsageError } from '@xsb/core';
import {
  type AudienceWeightsResult,
  createUtilityJudge,
  ensureAudienceWeights,
  loadAudienceProfiles,
  WEIGHT_DEFAULTS,
} from '@xsb/weights';
import {
  collectList,
  configFlags,
  discoverSelectedCases,
  integerFlag,
  llmClientOptions,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { forEachCaseWithProgress } from '../for-each-case-with-progress';
import { printTable } from '../print-table';

interface WeightsFlags {
  data?: string;
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
    program
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
      .option('--force', 'redo weights that are already finished')
      .option('--json', 'print the result rows as JSON')
      .action(async (flags: WeightsFlags) => {
        const k = integerFlag('--k', flags.k, WEIGHT_DEFAULTS.k, 1);
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
        const judge = createUtilityJudge(config.judge, llmClientOptions(context, config, env));
        const dataDir = resolve(context.io.cwd, config.dataDir);
        const layout = new RunLayout(dataDir);
        const { cases, failures } = await discoverSelectedCases(dataDir, flags.case);
        const rows = failures.map((failure) =>
          emptyRow(failure.caseId, '-', 'failed', failure.error.message),
        );
        await forEachCaseWithProgress(context.progress(), 'weights', cases, async (sourceCase) => {
          const valid = sourceCase.metadata.valid_audiences;
          const audiences = flags.audience && flags.audience.length > 0 ? flags.audience : valid;
          for (const audience of audiences) {
            if (!valid.includes(audience)) {
              rows.push(emptyRow(sourceCase.caseId, audience, 'not_applicable', null));
              continue;
            }
            if (!profiles.has(audience)) {
              rows.push(
                emptyRow(
                  sourceCase.caseId,
                  audience,
                  'failed',
                  `no profile for audience "${audience}" (add it with --audiences <file>)`,
                ),
              );
              continue;
            }
            const {
              weightsFile: _w,
              failuresFile: _f,
              ...result
            } = await ensureAudienceWeights(layout, sourceCase.caseId, audience, {
              judge,
              profiles,
              k,
              batchSize,
              force: Boolean(flags.force),
            });
            rows.push(result);
          }
        });
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
            `${rows.length} case-audience pair(s): ${count('complete')} weighted, ${count('skipped')} skipped, ${count('failed')} failed (judge ${judge.id}, k ${k})`,
          );
          for (const row of rows)
            if (row.error) context.warn(`ERROR: ${row.caseLabel}/${row.audience}: ${row.error}`);
        }
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
