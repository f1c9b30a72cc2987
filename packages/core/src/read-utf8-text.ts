import { readFile } from 'node:fs/promises';
import { InputError } from './errors';

/** Strict UTF-8 (never a silent U+FFFD), no BOM, LF line ends so char offsets are stable across platforms. */
export function decodeUtf8Text(bytes: Uint8Array, file: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    throw new InputError('file is not valid UTF-8 (save it as UTF-8 and retry)', {
      file,
      code: 'invalid_utf8',
      cause: error,
    });
  }
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export async function readUtf8Text(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'file not found' : `cannot read (${(error as Error).message})`, {
      file,
      code: code === 'ENOENT' ? 'missing_file' : 'unreadable',
      cause: error,
    });
  }
  return decodeUtf8Text(bytes, file);
}
