import { resolve } from 'node:path';
import { compareCodePoints, isXsbError, plural, RunLayout } from '@xsb/core';
import { DEFAULT_SOURCE_CHARS, prepareSourceContext, type SourceCase } from '@xsb/sources';
import { describeCliError } from '../cli-advice';
import {
  collectList,
  configFlags,
  discoverSelectedCases,
  integerFlag,
  pagesFlag,
  SHARD_OPTION,
  shardFlag,
  sourceOptionsFor,
} from '../cli-options';
import type { CommandModule } from '../command-module';
import { reportExitCode } from '../exit-code';
import { printTable } from '../print-table';

interface SourcesFlags {
  data?: string;
  case?: string[];
  sourceChars?: string;
  pages?: string;
  pdfParser?: string;
  shard?: string;
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
      .option('--case <id>', 'only these cases (repeatable or comma-separated)', collectList)
      .option('--source-chars <n>', `characters kept after extraction (default ${DEFAULT_SOURCE_CHARS})`)
      .option(
        '--pages <range>',
        'PDF pages kept, e.g. 1-40 or 1-5,9 (default all; kept by later stages); other sources are read whole',
      )
      .option(
        '--pdf-parser <name>',
        'PDF parser: unpdf (local, default) or mineru (MINERU_API_URL or MINERU_API_KEY)',
      )
      .option(...SHARD_OPTION)
      .option('--force', 'redo cases whose source context is already current')
      .option('--json', 'print the result rows as JSON')
      .action(async (flags: SourcesFlags) => {
        const maxChars = integerFlag('--source-chars', flags.sourceChars, DEFAULT_SOURCE_CHARS, 1);
        const pages = pagesFlag(flags.pages);
        const shard = shardFlag(flags.shard);
        const { config, env } = context.loadConfig({
          ...configFlags(flags),
          ...(flags.pdfParser !== undefined ? { pdfParser: flags.pdfParser as 'unpdf' | 'mineru' } : {}),
        });
        const dataDir = resolve(context.io.cwd, config.dataDir);
        const layout = new RunLayout(dataDir);
        const { cases, failures } = await discoverSelectedCases(dataDir, flags.case, shard);
        const rows = failures.map((failure) => failedRow(failure.caseId, null, failure.error));
        const options = { maxChars, ...sourceOptionsFor(config, env, pages), force: Boolean(flags.force) };
        // A case is the finest unit that takes time: stage 1 judges nothing.
        const progress = context.progress();
        progress.start('sources', cases.length, { unit: 'cases' });
        for (const sourceCase of cases) {
          rows.push(await prepareRow(layout, sourceCase, options));
          progress.tick(1, sourceCase.caseId);
        }
        progress.finish();
        rows.sort((a, b) => compareCodePoints(a.case_id, b.case_id));
        if (flags.json) context.printJson(rows);
        else printSourcesTable(context.print, rows);
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
    error: describeCliError(error),
  };
}

function printSourcesTable(print: (line: string) => void, rows: SourcesRow[]): void {
  printTable(
    print,
    ['case', 'type', 'parser', 'pages', 'chars', 'status'],
    rows.map((row) => [
      row.case_id,
      row.source_type ?? '-',
      row.parser ?? '-',
      row.parser === 'unpdf' || row.parser === 'pptx' ? String(row.pages) : '-',
      String(row.chars),
      row.truncated ? `${row.status} (truncated)` : row.status,
    ]),
    // Pages stay right-aligned when a "-" (no page count) stands among the numbers.
    [3, 4],
  );
  const count = (status: SourcesRow['status']) => rows.filter((row) => row.status === status).length;
  print(
    `${plural(rows.length, 'case')}: ${count('prepared')} prepared, ${count('skipped')} skipped, ${count('failed')} failed`,
  );
}
