import { open, readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { DEFAULT_ZIP_LIMITS, type Deck, InputError, isXsbError, ZipArchive, type ZipLimits } from '@xsb/core';
import { readPdfDeck } from './read-pdf-deck';
import { readPptxDeck } from './read-pptx-deck';

export interface ReadDeckOptions {
  /** Defaults: 512 MiB, core's zip limits, 2000 pages, 60 s. */
  maxFileBytes?: number;
  zipLimits?: Partial<ZipLimits>;
  maxPages?: number;
  timeoutMs?: number;
}

export type DeckFormat = 'pptx' | 'pdf';

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** The deck format from the file's first bytes (never its name); an InputError says what it is instead. */
export function detectDeckFormat(head: Buffer, file: string): DeckFormat {
  if (head.length === 0) throw new InputError('the file is empty', { file, code: 'empty_file' });
  if (head.subarray(0, 1024).includes('%PDF-')) return 'pdf';
  const magic = head.length >= 4 ? head.readUInt32LE(0) : 0;
  if (magic === 0x04034b50 || magic === 0x06054b50) return 'pptx';
  if (head.subarray(0, 8).equals(OLE_SIGNATURE)) {
    throw new InputError(
      'an OLE compound file: a password-protected (encrypted) PPTX or a legacy binary .ppt; save it as an unprotected .pptx or PDF',
      { file, code: 'encrypted' },
    );
  }
  throw new InputError('not a deck: expected a PPTX (ZIP package) or a PDF', { file, code: 'not_a_deck' });
}

export async function readFileHead(file: string, length: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, file: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new InputError(`reading took longer than ${timeoutMs} ms; gave up`, { file, code: 'timeout' }),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a PPTX or PDF deck; failures are InputErrors, hostile files hit size, inflate and time limits. */
export async function readDeck(path: string, options: ReadDeckOptions = {}): Promise<Deck> {
  const maxFileBytes = options.maxFileBytes ?? 512 * 1024 * 1024;
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InputError('not a file', { file: path, code: 'not_a_file' });
    size = info.size;
  } catch (error) {
    if (isXsbError(error)) throw error;
    throw new InputError(`cannot open the deck: ${(error as Error).message}`, {
      file: path,
      code: 'missing_file',
    });
  }
  if (size > maxFileBytes) {
    throw new InputError(`the file is ${size} bytes, more than the limit of ${maxFileBytes}`, {
      file: path,
      code: 'too_large',
    });
  }
  const format = detectDeckFormat(await readFileHead(path, 1024), path);
  const bytes = await readFile(path);
  const work = async (): Promise<Deck> => {
    if (format === 'pdf') {
      return readPdfDeck(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), path, {
        maxPages: options.maxPages ?? 2000,
      });
    }
    const zip = ZipArchive.open(bytes, path, { ...DEFAULT_ZIP_LIMITS, ...options.zipLimits });
    return readPptxDeck(zip, path);
  };
  try {
    const deck = await withTimeout(work(), options.timeoutMs ?? 60_000, path);
    const extension = extname(path).slice(1).toLowerCase();
    if ((extension === 'pptx' || extension === 'pdf') && extension !== format) {
      deck.warnings.push(
        `the file is named .${extension} but its content is ${format.toUpperCase()}; read as ${format.toUpperCase()}`,
      );
    }
    return deck;
  } catch (error) {
    if (isXsbError(error)) throw error;
    if (error instanceof RangeError) {
      throw new InputError(`the file is too deeply nested or too large to parse: ${error.message}`, {
        file: path,
        code: 'too_complex',
        cause: error,
      });
    }
    throw new InputError(`cannot read the deck: ${(error as Error).message}`, {
      file: path,
      code: 'unreadable_deck',
      cause: error,
    });
  }
}
