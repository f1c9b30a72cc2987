import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { InputError, ValidationError } from './errors';
import { validateRecord } from './validate-record';

/** A single line longer than this is refused instead of being buffered without bound. */
export const MAX_JSONL_LINE_BYTES = 64 * 1024 * 1024;

export interface ReadJsonlOptions {
  /** Called for a bad line, then the reader goes on; without it the first bad line throws. */
  onInvalid?: (error: ValidationError) => void;
}

function decodeLine(bytes: Buffer, file: string, line: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ValidationError('line is not valid UTF-8', { file, line });
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Streams a JSONL file as validated records in constant memory; blank lines are skipped. */
export async function* readJsonl<S extends z.ZodType>(
  file: string,
  schema: S,
  options: ReadJsonlOptions = {},
): AsyncGenerator<z.infer<S>> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;

  const handleLine = (bytes: Buffer): { ok: true; value: z.infer<S> } | { ok: false } | null => {
    lineNumber += 1;
    const raw = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
    try {
      const text = decodeLine(raw, file, lineNumber);
      if (text.trim() === '') return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(lineNumber === 1 ? text.replace(/^\uFEFF/, '') : text);
      } catch (error) {
        throw new ValidationError(`invalid JSON (${(error as Error).message})`, { file, line: lineNumber });
      }
      return { ok: true, value: validateRecord(schema, parsed, { file, line: lineNumber }) };
    } catch (error) {
      if (error instanceof ValidationError && options.onInvalid) {
        options.onInvalid(error);
        return { ok: false };
      }
      throw error;
    }
  };

  let stream: AsyncIterable<Buffer>;
  try {
    stream = createReadStream(file, { highWaterMark: 1 << 16 });
  } catch (error) {
    throw new InputError('cannot open JSONL file', { file, cause: error });
  }
  try {
    for await (const chunk of stream) {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(0x0a, start);
        if (newline === -1) break;
        const piece = chunk.subarray(start, newline);
        const lineBytes = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        const result = handleLine(lineBytes);
        if (result?.ok) yield result.value;
        start = newline + 1;
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > MAX_JSONL_LINE_BYTES) {
          throw new ValidationError(`line longer than ${MAX_JSONL_LINE_BYTES} bytes`, {
            file,
            line: lineNumber + 1,
          });
        }
      }
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new InputError('file not found', { file, code: 'missing_file', cause: error });
    throw new InputError(`cannot read (${(error as Error).message})`, { file, cause: error });
  }
  if (pendingBytes > 0) {
    const result = handleLine(Buffer.concat(pending));
    if (result?.ok) yield result.value;
  }
}

/** Reads a whole JSONL file into memory; for files known to be small (probe banks, weights). */
export async function readJsonlAll<S extends z.ZodType>(
  file: string,
  schema: S,
  options: ReadJsonlOptions = {},
): Promise<Array<z.infer<S>>> {
  const rows: Array<z.infer<S>> = [];
  for await (const row of readJsonl(file, schema, options)) rows.push(row);
  return rows;
}

/** Appends validated rows, one write per row, so a crash loses at most the row being written. */
export class JsonlWriter<S extends z.ZodType> {
  private constructor(
    readonly file: string,
    private readonly schema: S,
    private handle: FileHandle | null,
  ) {}

  static async open<S extends z.ZodType>(file: string, schema: S): Promise<JsonlWriter<S>> {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(file, 'a');
    return new JsonlWriter(file, schema, handle);
  }

  async write(row: z.input<S>): Promise<z.infer<S>> {
    if (!this.handle) throw new Error(`JsonlWriter for ${this.file} is closed`);
    const value = validateRecord(this.schema, row, { file: this.file });
    await this.handle.write(`${JSON.stringify(value)}\n`);
    return value;
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }
}

/** Writes a whole JSONL file atomically (temp + rename) after validating every row. */
export async function writeJsonlAtomic<S extends z.ZodType>(
  file: string,
  schema: S,
  rows: Iterable<z.input<S>>,
): Promise<Array<z.infer<S>>> {
  const values: Array<z.infer<S>> = [];
  let text = '';
  for (const row of rows) {
    const value = validateRecord(schema, row, { file });
    values.push(value);
    text += `${JSON.stringify(value)}\n`;
  }
  await writeFileAtomic(file, text);
  return values;
}
