import { inflateRawSync } from 'node:zlib';
import { InputError, type XsbErrorCode } from './errors';

/** Caps that keep a hostile archive (zip bomb, huge part, entry flood) from exhausting memory. */
export interface ZipLimits {
  maxEntryBytes: number;
  /** Over all entries read from one archive. */
  maxTotalBytes: number;
  maxEntries: number;
  /** For `readText`: XML parts cost tens of bytes of memory per input byte. */
  maxTextEntryBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntryBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntries: 20_000,
  maxTextEntryBytes: 8 * 1024 * 1024,
};

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  declaredSize: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/** Names that could escape a folder if someone extracted them: we never read those. */
function isUnsafeEntryName(name: string): boolean {
  return (
    name.startsWith('/') ||
    name.includes('\\') ||
    /^[a-zA-Z]:/.test(name) ||
    name.split('/').some((part) => part === '..') ||
    name.includes('\u0000')
  );
}

/**
 * Entries inflate lazily with zlib's `maxOutputLength`, so a bomb stops at the limit (declared sizes are
 * never trusted). Not fflate/yauzl: we need random access by name, a hard inflate cap and no disk.
 */
export class ZipArchive {
  readonly warnings: string[] = [];
  private readonly entries = new Map<string, ZipEntry>();
  private inflatedTotal = 0;

  private constructor(
    private readonly bytes: Buffer,
    private readonly file: string,
    private readonly limits: ZipLimits,
  ) {}

  static open(bytes: Buffer, file: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipArchive {
    const archive = new ZipArchive(bytes, file, limits);
    archive.readCentralDirectory();
    return archive;
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  read(name: string): Buffer | undefined {
    const entry = this.entries.get(name);
    return entry && this.inflate(entry);
  }

  readText(name: string): string | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return this.inflate(entry, this.limits.maxTextEntryBytes)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  }

  private fail(reason: string, code: XsbErrorCode = 'corrupt_zip'): never {
    throw new InputError(reason, { file: this.file, code });
  }

  private readCentralDirectory(): void {
    const bytes = this.bytes;
    const searchStart = Math.max(0, bytes.length - 22 - 0xffff);
    let eocd = -1;
    for (let offset = bytes.length - 22; offset >= searchStart; offset--) {
      if (bytes.readUInt32LE(offset) === EOCD_SIGNATURE) {
        eocd = offset;
        break;
      }
    }
    if (eocd < 0) this.fail('not a valid ZIP archive (no end-of-central-directory record)');
    const entryCount = bytes.readUInt16LE(eocd + 10);
    const directorySize = bytes.readUInt32LE(eocd + 12);
    const directoryOffset = bytes.readUInt32LE(eocd + 16);
    if (entryCount === 0xffff || directoryOffset === 0xffffffff)
      this.fail(
        'ZIP64 archives are not supported (an archive this large is not a normal deck or result)',
        'zip64',
      );
    if (entryCount > this.limits.maxEntries)
      this.fail(`the archive lists ${entryCount} entries, more than the limit of ${this.limits.maxEntries}`);
    if (directoryOffset + directorySize > bytes.length) this.fail('the ZIP central directory is truncated');
    let offset = directoryOffset;
    let unsafeNames = 0;
    for (let index = 0; index < entryCount; index++) {
      if (offset + 46 > bytes.length || bytes.readUInt32LE(offset) !== CENTRAL_SIGNATURE)
        this.fail('the ZIP central directory is corrupt');
      const flags = bytes.readUInt16LE(offset + 8);
      const method = bytes.readUInt16LE(offset + 10);
      const compressedSize = bytes.readUInt32LE(offset + 20);
      const declaredSize = bytes.readUInt32LE(offset + 24);
      const nameLength = bytes.readUInt16LE(offset + 28);
      const extraLength = bytes.readUInt16LE(offset + 30);
      const commentLength = bytes.readUInt16LE(offset + 32);
      const localHeaderOffset = bytes.readUInt32LE(offset + 42);
      const name = bytes.toString('utf8', offset + 46, offset + 46 + nameLength);
      offset += 46 + nameLength + extraLength + commentLength;
      if (isUnsafeEntryName(name)) {
        unsafeNames++;
        continue;
      }
      this.entries.set(name, { name, method, flags, compressedSize, declaredSize, localHeaderOffset });
    }
    if (unsafeNames > 0)
      this.warnings.push(
        `ignored ${unsafeNames} archive entr${unsafeNames === 1 ? 'y' : 'ies'} with unsafe path names`,
      );
  }

  private inflate(entry: ZipEntry, entryLimit = this.limits.maxEntryBytes): Buffer {
    const bytes = this.bytes;
    if (entry.flags & 0x1)
      this.fail(`entry ${entry.name} is encrypted (password-protected file)`, 'encrypted');
    const local = entry.localHeaderOffset;
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL_SIGNATURE)
      this.fail(`entry ${entry.name} has a corrupt local header`);
    const dataStart = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const dataEnd = dataStart + entry.compressedSize;
    if (dataEnd > bytes.length) this.fail(`entry ${entry.name} is truncated`);
    const compressed = bytes.subarray(dataStart, dataEnd);
    const remaining = this.limits.maxTotalBytes - this.inflatedTotal;
    const cap = Math.min(entryLimit, remaining);
    const tooBig = (): never =>
      this.fail(
        cap === entryLimit
          ? `entry ${entry.name} inflates past ${entryLimit} bytes (zip bomb or oversized part)`
          : `the archive inflates past ${this.limits.maxTotalBytes} bytes in total (zip bomb?)`,
        'zip_too_large',
      );
    let output: Buffer;
    if (entry.method === 0) {
      if (compressed.length > cap) tooBig();
      output = compressed;
    } else if (entry.method === 8) {
      try {
        output = inflateRawSync(compressed, { maxOutputLength: Math.max(1, cap) });
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) tooBig();
        this.fail(`entry ${entry.name} cannot be inflated: ${(error as Error).message}`);
      }
    } else {
      this.fail(`entry ${entry.name} uses unsupported compression method ${entry.method}`);
    }
    this.inflatedTotal += output.length;
    return output;
  }
}
