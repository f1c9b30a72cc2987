import { join, resolve } from 'node:path';
import { type ProviderLimits, RunLayout, UsageError, type XsbConfig } from '@xsb/core';
import { type CreateLlmClientOptions, parseJudgeSpec } from '@xsb/llm';
import { type CaseProbesResult, createProbeGenerator, generateCaseProbes, PROBE_DEFAULTS } from '@xsb/probes';
import { discoverSourceCases, resolveMineruCacheDir } from '@xsb/sources';
import type { CliContext } from '../cli-context';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

interface ProbesFlags {
  data?: string;
  case?: string[];
  judge?: string;
  k?: string;
  chunkChars?: string;
  chunkOverlap?: string;
  sourceChars?: string;
  force?: boolean;
  json?: boolean;
}

export function collectList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

/**
 * Parses an integer flag; `min` is the smallest value allowed (none by default). Bad input is a usage
 * error (exit 2).
 */
export function integerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  min = Number.NEGATIVE_INFINITY,
): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    const wanted = Number.isFinite(min) ? `an integer >= ${min}` : 'an integer';
    throw new UsageError(`${name} must be ${wanted}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** Model-client options from the configuration: cache, limits and the run's usage ledger. */
export function llmClientOptions(
  context: CliContext,
  config: XsbConfig,
  env: Record<string, string>,
): CreateLlmClientOptions {
  const spec = parseJudgeSpec(config.judge);
  const limits: ProviderLimits | undefined =
    spec.kind === 'anthropic' || spec.kind === 'openai' ? config.providers[spec.kind] : undefined;
  return {
    env,
    cacheDir: resolve(context.io.cwd, config.cacheDir),
    noCache: config.noCache,
    refresh: config.refresh,
    ledgerFile: new RunLayout(resolve(context.io.cwd, config.dataDir)).usageLedgerFile(config.run),
    ...(limits ? { limits } : {}),
  };
}

/** Throws a usage error naming the unknown ones when `wanted` asks for cases that do not exist. */
export function selectCases(wanted: string[] | undefined, known: string[]): (caseId: string) => boolean {
  if (!wanted || wanted.length === 0) return () => true;
  const unknown = wanted.filter((id) => !known.includes(id));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown case ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${known.join(', ') || 'none'})`,
    );
  }
  const set = new Set(wanted);
  return (caseId) => set.has(caseId);
}

/** `xsb probes`: stage 2, the probe bank of every case (source context, k generations per chunk, filters, dedup). */
export const probesCommand: CommandModule = {
  name: 'probes',
  register(program, context) {
    program
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
        `source characters kept after extraction (default ${PROBE_DEFAULTS.sourceChars})`,
      )
      .option('--force', 'rebuild banks that are already finished')
      .option('--json', 'print the result rows as JSON')
      .action(async (flags: ProbesFlags) => {
        const k = integerFlag('--k', flags.k, PROBE_DEFAULTS.k, 1);
        // Spec 000 gives negative values a meaning (chunk_chars <= 0: one chunk; overlap max(0, ·)), so
        // they are accepted as written rather than refused.
        const chunkChars = integerFlag('--chunk-chars', flags.chunkChars, PROBE_DEFAULTS.chunkChars);
        const chunkOverlap = integerFlag('--chunk-overlap', flags.chunkOverlap, PROBE_DEFAULTS.chunkOverlap);
        const sourceChars = integerFlag('--source-chars', flags.sourceChars, PROBE_DEFAULTS.sourceChars, 1);
        const { config, env } = context.loadConfig({
          ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
          ...(flags.judge !== undefined ? { judge: flags.judge } : {}),
        });
        const generator = createProbeGenerator(config.judge, llmClientOptions(context, config, env));
        const dataDir = resolve(context.io.cwd, config.dataDir);
        const layout = new RunLayout(dataDir);
        const discovered = await discoverSourceCases(dataDir);
        const selected = selectCases(flags.case, [
          ...discovered.cases.map((c) => c.caseId),
          ...discovered.failures.map((f) => f.caseId),
        ]);
        const results: CaseProbesResult[] = discovered.failures
          .filter((failure) => selected(failure.caseId))
          .map((failure) => ({
            caseId: failure.caseId,
            status: 'failed',
            generationStatus: undefined,
            error: failure.error.message,
          }));
        const cases = discovered.cases.filter((c) => selected(c.caseId));
        const mineruCacheDir = resolveMineruCacheDir(env) ?? join(config.cacheDir, 'mineru');
        const progress = context.progress();
        progress.start('probes', cases.length);
        for (const sourceCase of cases) {
          results.push(
            await generateCaseProbes(layout, sourceCase, {
              generator,
              k,
              chunkChars,
              chunkOverlap,
              sourceChars,
              force: Boolean(flags.force),
              sourceOptions: { pdfParser: config.pdfParser, env, mineruCacheDir },
            }),
          );
          progress.tick(1, sourceCase.caseId);
        }
        progress.finish();
        results.sort((a, b) => (a.caseId < b.caseId ? -1 : a.caseId > b.caseId ? 1 : 0));
        const rows = results.map((result) => ({
          case_id: result.caseId,
          status: result.status,
          judge: result.generationStatus?.judge ?? config.judge,
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
        if (flags.json) context.printJson(rows);
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
            `${rows.length} case(s): ${count('complete')} built, ${count('skipped')} skipped, ${count('failed')} failed (judge ${generator.id})`,
          );
          for (const row of rows) {
            if (row.error) context.warn(`ERROR: ${row.case_id}: ${row.error}`);
            // An empty bank is a valid result (e.g. a source without facts the generator can use), but
            // every later number for that case would be empty too.
            else if (row.final === 0) context.warn(`WARNING: ${row.case_id}: the probe bank is empty`);
          }
        }
        if (rows.some((row) => row.status === 'failed')) reportExitCode(1);
      });
  },
};

/** Prints aligned columns; the first column is left-aligned, numbers right-aligned. */
export function printTable(print: (line: string) => void, header: string[], cells: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  );
  const numeric = (column: number) => cells.every((line) => /^\d+(\.\d+)?$/.test(line[column]!));
  const format = (line: string[]) =>
    line
      .map((cell, column) =>
        column > 0 && numeric(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  print(format(header));
  for (const line of cells) print(format(line));
}
