import { readFile } from 'node:fs/promises';
import { InputError } from '@xsb/core';

/** A text file as a string: a missing, unreadable or non-UTF-8 file is an `InputError` naming it; a BOM is dropped. */
export async function readUtf8(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'file not found' : `cannot read (${(error as Error).message})`, {
      file,
      cause: error,
    });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch (error) {
    throw new InputError('file is not valid UTF-8', { file, cause: error });
  }
}
