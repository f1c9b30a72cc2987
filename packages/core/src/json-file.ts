import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { InputError, ValidationError } from './errors';
import { validateRecord } from './validate-record';

/** Reads and validates a JSON file; errors name the file and the field. */
export async function readJson<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S>> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new InputError('file not found', { file, cause: error });
    if (error instanceof TypeError) throw new InputError('file is not valid UTF-8', { file, cause: error });
    throw new InputError(`cannot read (${(error as Error).message})`, { file, cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ValidationError(`invalid JSON (${(error as Error).message})`, { file }, { cause: error });
  }
  return validateRecord(schema, parsed, { file });
}

/** Validates, then writes pretty JSON atomically: a reader never sees a half-written file. */
export async function writeJson<S extends z.ZodType>(
  file: string,
  schema: S,
  value: z.input<S>,
): Promise<z.infer<S>> {
  const validated = validateRecord(schema, value, { file });
  await writeFileAtomic(file, `${JSON.stringify(validated, null, 2)}\n`);
  return validated;
}
