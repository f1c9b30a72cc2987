import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  assertSafePathPart,
  decodeUtf8Text,
  InputError,
  isXsbError,
  type RunSheetRow,
  runSheetRowSchema,
  UsageError,
  ValidationError,
  validateRecord,
  writeFileAtomic,
} from '@xsb/core';
import { parse } from 'csv-parse/sync';

export const RUN_SHEET_COLUMNS = [
  'system',
  'condition',
  'audience',
  'case_label',
  'source_document',
  'prompt_path',
  'output_deck_path',
] as const;

const REQUIRED_COLUMNS = ['system', 'condition', 'audience', 'case_label', 'source_document'];

export interface RunSheetEntry {
  /** The CSV line where the row ends (1-based, header is line 1). */
  line: number;
  row: RunSheetRow;
  /** Paths in the row resolved against the run sheet's folder ('' when the cell is empty). */
  sourceDocument: string;
  promptPath: string;
  outputDeckPath: string;
}

export interface InvalidRunSheetRow {
  line: number;
  raw: Record<string, string>;
  error: InputError;
  /** The column at fault, when one is (`condition`, `case_label` …). */
  field?: string;
  reason: string;
}

export interface RunSheet {
  file: string;
  entries: RunSheetEntry[];
  invalid: InvalidRunSheetRow[];
}

function resolveCell(base: string, value: string): string {
  if (value === '') return '';
  return isAbsolute(value) ? value : resolve(base, value);
}

/** A bad row becomes an `invalid` entry and the others stay usable; a file that is no run sheet throws. */
export async function readRunSheet(file: string): Promise<RunSheet> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new InputError(`cannot read (${(error as Error).message})`, { file, cause: error });
  }
  const text = decodeUtf8Text(bytes, file);
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // Rows are read as plain cell lists, so a row with too few or too many cells becomes one invalid
    // row with its line number instead of failing the whole sheet.
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
      relax_column_count: true,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (error) {
    // Nothing in a sheet that is not CSV can run: a usage error (exit 2), like a missing column.
    throw new UsageError(`${file}: not a valid CSV run sheet (${(error as Error).message})`, {
      code: 'invalid_run_sheet',
    });
  }
  const header = records[0]?.record ?? [];
  const missing = REQUIRED_COLUMNS.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new UsageError(
      `${file}:1: the run sheet lacks column${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (a run sheet has the columns ${RUN_SHEET_COLUMNS.join(',')})`,
      { code: 'invalid_run_sheet' },
    );
  }
  const base = dirname(resolve(file));
  const entries: RunSheetEntry[] = [];
  const invalid: InvalidRunSheetRow[] = [];
  for (const { record: cells, info } of records.slice(1)) {
    const line = info.lines;
    const record = Object.fromEntries(header.map((column, index) => [column, cells[index] ?? '']));
    try {
      if (cells.length !== header.length) {
        throw new ValidationError(`the row has ${cells.length} cells but the header has ${header.length}`, {
          file,
          line,
        });
      }
      const row = validateRecord(runSheetRowSchema, record, { file, line });
      for (const field of ['system', 'audience', 'case_label'] as const) {
        try {
          assertSafePathPart(row[field], field.replace('_', ' '));
        } catch (error) {
          if (!isXsbError(error)) throw error;
          throw new ValidationError(error.message, { file, line, field });
        }
      }
      entries.push({
        line,
        row,
        sourceDocument: resolveCell(base, row.source_document),
        promptPath: resolveCell(base, row.prompt_path),
        outputDeckPath: resolveCell(base, row.output_deck_path),
      });
    } catch (error) {
      if (!isXsbError(error)) throw error;
      const located =
        error instanceof InputError && error.message.startsWith(file)
          ? error
          : new InputError(error.message, { file: `${file}:${line}`, code: error.code });
      const field = error instanceof ValidationError ? error.field : undefined;
      const reason = located.message.replace(`${file}:${line}: `, '').replace(/^field "[^"]+": /, '');
      invalid.push({ line, raw: record, error: located, ...(field ? { field } : {}), reason });
    }
  }
  return { file, entries, invalid };
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** RFC 4180 quoting, `\n` line ends. */
export async function writeCsvAtomic(
  file: string,
  columns: readonly string[],
  rows: Array<Record<string, string | number>>,
): Promise<void> {
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvCell(String(row[column] ?? ''))).join(','));
  await writeFileAtomic(file, `${lines.join('\n')}\n`);
}

/** One `xsb-baseline` deck as a run sheet of one row (`xsb decks generate --source … --case …`). */
export function singleRowRunSheet(row: {
  system: string;
  sourceDocument: string;
  caseLabel: string;
  condition: RunSheetRow['condition'];
  audience: string;
}): RunSheet {
  return {
    file: '(flags)',
    invalid: [],
    entries: [
      {
        line: 1,
        row: {
          system: row.system,
          condition: row.condition,
          audience: row.audience,
          case_label: row.caseLabel,
          source_document: row.sourceDocument,
          prompt_path: '',
          output_deck_path: '',
        },
        sourceDocument: row.sourceDocument,
        promptPath: '',
        outputDeckPath: '',
      },
    ],
  };
}
