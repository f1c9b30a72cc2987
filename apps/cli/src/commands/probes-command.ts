import { emptyProbeBankWarnings, plural, progressListener } from '@xsb/core';
import { createJudge } from '@xsb/llm';
import {
  type CaseProbesResult,
  createProbeGenerator,
  generateRunProbes,
  PROBE_DEFAULTS,
  templateLanguageNote,
} from '@xsb/probes';
import type { CliContext } from '../cli-context';
import {
  addBatchFlags,
  type BatchFlags,
  collectList,
  discoverSelectedCases,
  integerFlag,
  judgedStage,
  optionalIntegerFlag,
  PAGES_OPTION_HELP,
  pagesFlag,
  SHARD_OPTION,
  shardFlag,
  sourceOptionsFor,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';

interface ProbesFlags extends BatchFlags {
  data?: string;
  shard?: string;
  case?: string[];
  judge?: string;
  k?: string;
  chunkChars?: string;
  chunkOverlap?: string;
  sourceChars?: string;
  pages?: string;
  force?: boolean;
  json?: boolean;
}

/** `xsb probes`: stage 2, the probe bank of every case (source context, k generations per chunk, filters, dedup). */
export const probesCommand: CommandModule = {
  name: 'probes',
  register(program, context) {
    const command = program
      .command('probes')
      .description(
        'stage 2: build <data>/probes/<case>/probes_deduped.jsonl for every case under <data>/sources/',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--case <id>', 'only these cases (repeatable or comma-separated)', collectList)
      .option(
        '--judge <spec>',
        'lexical (offline, default) or anthropic:<model>, openai:<model>, replay:<store.jsonl>',
      )
      .option('--k <n>', `generations per chunk (default ${PROBE_DEFAULTS.k})`)
      .option(
        '--chunk-chars <n>',
        `chunk size in characters; 0 or less sends the whole source (default ${PROBE_DEFAULTS.chunkChars})`,
      )
      .option(
        '--chunk-overlap <n>',
        `characters shared by neighbouring chunks; below 0 counts as 0 (default ${PROBE_DEFAULTS.chunkOverlap})`,
      )
      .option(
        '--source-chars <n>',
        `source characters kept after extraction (default: what \`xsb sources\` kept, else ${PROBE_DEFAULTS.sourceChars})`,
      )
      .option('--pages <range>', PAGES_OPTION_HELP)
      .option(...SHARD_OPTION)
      .option('--force', 'rebuild banks that are already finished');
    addBatchFlags(command, '<data>/batches/')
      .option('--json', 'print the result rows as JSON')
      .action((flags: ProbesFlags) => runProbes(context, flags));
  },
};

/** The stage's settings from the flags `xsb probes` and `xsb plan probes` share; usage errors first. */
export function probeSettings(flags: Omit<ProbesFlags, 'case'>) {
  return {
    k: integerFlag('--k', flags.k, PROBE_DEFAULTS.k, 1),
    // Spec 000 gives negative values a meaning (chunk_chars <= 0: one chunk; overlap max(0, ·)), so
    // they are accepted as written rather than refused.
    chunkChars: integerFlag('--chunk-chars', flags.chunkChars, PROBE_DEFAULTS.chunkChars),
    chunkOverlap: integerFlag('--chunk-overlap', flags.chunkOverlap, PROBE_DEFAULTS.chunkOverlap),
    // Unset: the retained source `xsb sources` decided (max chars, pages) is kept.
    sourceChars: optionalIntegerFlag('--source-chars', flags.sourceChars, 1),
    pages: pagesFlag(flags.pages),
    force: Boolean(flags.force),
  };
}

async function runProbes(context: CliContext, flags: ProbesFlags): Promise<void> {
  const { pages, ...settings } = probeSettings(flags);
  const shard = shardFlag(flags.shard);
  const { config, env, layout, clientOptions, concurrency } = judgedStage(context, flags, (l) =>
    l.batchStateDir(),
  );
  const generator = createProbeGenerator(createJudge(config.judge, clientOptions));
  const discovered = await discoverSelectedCases(layout.dataDir, flags.case, shard);
  const results = await generateRunProbes(layout, discovered, {
    generator,
    ...settings,
    sourceOptions: sourceOptionsFor(config, env, pages),
    ...(concurrency !== undefined ? { concurrency } : {}),
    onEvent: progressListener(context.progress()),
  });
  printProbeRows(context, results, config.judge, generator.id, Boolean(flags.json));
  // An empty bank is a valid result (e.g. a source without facts the generator can use), but
  // every later number for that case is empty too; each later stage repeats this line.
  for (const line of await emptyProbeBankWarnings(
    layout,
    results.map((result) => result.caseId),
  ))
    context.warn(line);
  if (results.some((result) => result.status === 'failed')) reportExitCode(1);
}

/** One row per case, as a table (with errors and language notes) or as JSON. */
function printProbeRows(
  context: CliContext,
  results: readonly CaseProbesResult[],
  configJudge: string,
  judgeId: string,
  json: boolean,
): void {
  const rows = results.map((result) => ({
    case_id: result.caseId,
    status: result.status,
    judge: result.generationStatus?.judge ?? configJudge,
    chunks: result.generationStatus?.chunking.chunk_count ?? 0,
    ...(result.generationStatus?.counts ?? {
      generated: 0,
      filtered: 0,
      ungrounded: 0,
      duplicates: 0,
      final: 0,
    }),
    error: result.error ?? null,
  }));
  if (json) context.printJson(rows);
  else {
    printTable(
      context.print,
      ['case', 'chunks', 'generated', 'filtered', 'ungrounded', 'duplicates', 'final', 'status'],
      rows.map((row) => [
        row.case_id,
        String(row.chunks),
        String(row.generated),
        String(row.filtered),
        String(row.ungrounded),
        String(row.duplicates),
        String(row.final),
        row.status,
      ]),
    );
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    context.print(
      `${plural(rows.length, 'case')}: ${count('complete')} built, ${count('skipped')} skipped, ${count('failed')} failed (judge ${judgeId})`,
    );
    for (const row of rows) if (row.error) context.warn(`ERROR: ${row.case_id}: ${row.error}`);
    for (const result of results) {
      const note = result.generationStatus && templateLanguageNote(result.generationStatus);
      if (note) context.print(`note: ${note}`);
    }
  }
}
