import { InputError } from './errors';
import { DEFAULT_ZIP_LIMITS, ZipArchive, type ZipLimits } from './zip-archive';

const PDF_MAGIC = '%PDF-';
const ZIP_LOCAL_MAGIC = 0x04034b50;

/**
 * The deck format of bytes that arrived from outside (an upload), by content alone: a PDF starts with
 * `%PDF-` (within its first 1,024 bytes, as PDF readers allow), a PPTX is a ZIP package holding
 * `ppt/presentation.xml`. Every entry of a ZIP is inflated once under the capped reader's limits, so a
 * zip bomb or a corrupt package is refused here rather than accepted and failed later. Anything else is
 * an InputError with code `unsupported_media_type` (or the ZIP reader's own code) naming `file`.
 */
export function identifyDeckContent(
  bytes: Buffer,
  file: string,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): 'pptx' | 'pdf' {
  if (bytes.length === 0) throw new InputError('the file is empty', { file, code: 'empty_file' });
  if (bytes.subarray(0, 1024).includes(PDF_MAGIC)) return 'pdf';
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== ZIP_LOCAL_MAGIC) {
    throw new InputError('not a deck: expected a PPTX (ZIP package) or a PDF (starting with %PDF-)', {
      file,
      code: 'unsupported_media_type',
    });
  }
  const archive = ZipArchive.open(bytes, file, limits);
  if (archive.readText('ppt/presentation.xml') === undefined) {
    throw new InputError('a ZIP archive without ppt/presentation.xml: not a PPTX package', {
      file,
      code: 'unsupported_media_type',
    });
  }
  for (const name of archive.names()) archive.read(name);
  return 'pptx';
}
