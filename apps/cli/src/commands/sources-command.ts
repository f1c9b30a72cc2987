import { join, resolve } from 'node:path';
import { describeError, isXsbError, RunLayout, UsageError } from '@xsb/core';
import {
  DEFAULT_SOURCE_CHARS,
  discoverSourceCases,
  prepareSourceContext,
  resolveMineruCacheDir,
  type SourceCase,
} from '@xsb/sources';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';

interface SourcesFlags {
  data?: string;
  case?: string[];
  sourceChars?: string;
  pdfParser?: string;
  force?: boolean;
  json?: boolean;
}

interface SourcesRow {
  case_id: string;
  source_type: string | null;
  parser: string | null;
  pages: number;
  chars: number;
  truncated: boolean;
  status: 'prepared' | 'skipped' | 'failed';
  error: string | null;
}

function collect(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

function parseSourceChars(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SOURCE_CHARS;
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0) {
    throw new UsageError(`--source-chars must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** `xsb sources`: stage 1, source text extraction for every case under `<data>/sources/`. */
export const sourcesCommand: CommandModule = {
  name: 'sources',
  register(program, context) {
    program
      .command('sources')
      .description(
        'stage 1: extract the text of every case under <data>/sources/ into <data>/probes/<case>/source_context.txt',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option('--case <id>', 'only these cases (repeatable or comma-separated)', collect)
      .option('--source-chars <n>', `characters kept after extraction (default ${DEFAULT_SOURCE_CHARS})`)
      .option(
        '--pdf-parser <name>',
        'PDF parser: unpdf (local, default) or mineru (MINERU_API_URL or MINERU_API_KEY)',
      )
      .option('--force', 'redo cases whose source context is already current')
      .option('--json', 'print the result rows as JSON')
      .action(async (flags: SourcesFlags) => {
        const maxChars = parseSourceChars(flags.sourceChars);
        const { config, env } = context.loadConfig({
          ...(flags.data !== undefined ? { dataDir: flags.data } : {}),
          ...(flags.pdfParser !== undefined ? { pdfParser: flags.pdfParser as 'unpdf' | 'mineru' } : {}),
        });
        const dataDir = resolve(context.io.cwd, config.dataDir);
        const layout = new RunLayout(dataDir);
        const discovered = await discoverSourceCases(dataDir);
        const rows: SourcesRow[] = [];
        const known = new Set([
          ...discovered.cases.map((c) => c.caseId),
          ...discovered.failures.map((f) => f.caseId),
        ]);
        const wanted = flags.case && flags.case.length > 0 ? new Set(flags.case) : undefined;
        if (wanted) {
          const unknown = [...wanted].filter((id) => !known.has(id));
          if (unknown.length > 0) {
            throw new UsageError(
              `unknown case ${unknown.map((id) => JSON.stringify(id)).join(', ')} (known: ${[...known].join(', ') || 'none'})`,
            );
          }
        }
        const selected = (caseId: string) => !wanted || wanted.has(caseId);
        for (const failure of discovered.failures) {
          if (selected(failure.caseId)) rows.push(failedRow(failure.caseId, null, failure.error));
        }
        const cases = discovered.cases.filter((c) => selected(c.caseId));
        const mineruCacheDir = resolveMineruCacheDir(env) ?? join(config.cacheDir, 'mineru');
        const progress = context.progress();
        progress.start('sources', cases.length);
        for (const sourceCase of cases) {
          rows.push(
            await prepareRow(layout, sourceCase, {
              maxChars,
              pdfParser: config.pdfParser,
              env,
              mineruCacheDir,
              force: Boolean(flags.force),
            }),
          );
          progress.tick(1, sourceCase.caseId);
        }
        progress.finish();
        rows.sort((a, b) => (a.case_id < b.case_id ? -1 : a.case_id > b.case_id ? 1 : 0));
        if (flags.json) context.printJson(rows);
        else printTable(context.print, rows);
        const failed = rows.filter((row) => row.status === 'failed');
        if (!flags.json) for (const row of failed) context.warn(`ERROR: ${row.case_id}: ${row.error}`);
        if (failed.length > 0) reportExitCode(1);
      });
  },
};

async function prepareRow(
  layout: RunLayout,
  sourceCase: SourceCase,
  options: Parameters<typeof prepareSourceContext>[2],
): Promise<SourcesRow> {
  try {
    const { extracted, skipped } = await prepareSourceContext(layout, sourceCase, options);
    return {
      case_id: sourceCase.caseId,
      source_type: sourceCase.sourceType,
      parser: extracted.parser,
      pages: extracted.pageCount,
      chars: extracted.text.length,
      truncated: extracted.truncated,
      status: skipped ? 'skipped' : 'prepared',
      error: null,
    };
  } catch (error) {
    // Usage and configuration problems (e.g. mineru chosen without an endpoint) stop the whole run.
    if (!isXsbError(error) || error.kind === 'usage' || error.kind === 'config') throw error;
    return failedRow(sourceCase.caseId, sourceCase.sourceType, error);
  }
}

function failedRow(caseId: string, sourceType: string | null, error: unknown): SourcesRow {
  return {
    case_id: caseId,
    source_type: sourceType,
    parser: null,
    pages: 0,
    chars: 0,
    truncated: false,
    status: 'failed',
    error: describeError(error),
  };
}

function printTable(print: (line: string) => void, rows: SourcesRow[]): void {
  const header = ['case', 'type', 'parser', 'pages', 'chars', 'status'];
  const cells = rows.map((row) => [
    row.case_id,
    row.source_type ?? '-',
    row.parser ?? '-',
    row.parser === 'unpdf' ? String(row.pages) : '-',
    String(row.chars),
    row.truncated ? `${row.status} (truncated)` : row.status,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  );
  const format = (line: string[]) =>
    line
      .map((cell, column) =>
        column === 3 || column === 4 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  print(format(header));
  for (const line of cells) print(format(line));
  const count = (status: SourcesRow['status']) => rows.filter((row) => row.status === status).length;
  print(
    `${rows.length} case(s): ${count('prepared')} prepared, ${count('skipped')} skipped, ${count('failed')} failed`,
  );
}
