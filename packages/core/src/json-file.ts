import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-write';
import { ValidationError } from './errors';
import { readUtf8Text } from './read-utf8-text';
import { validateRecord } from './validate-record';

/** Reads and validates a JSON file; errors name the file and the field. */
export async function readJson<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S>> {
  const text = await readUtf8Text(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
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

/**
 * The `input_hash` an artifact records, or null when the file is absent, unreadable or has none: a stage
 * compares it with the hash of its current inputs to decide reuse, so anything but a match means recompute.
 */
export async function recordedInputHash(file: string): Promise<string | null> {
  try {
    const hash = (JSON.parse(await readFile(file, 'utf8')) as { input_hash?: unknown } | null)?.input_hash;
    return typeof hash === 'string' ? hash : null;
  } catch {
    return null;
  }
}
