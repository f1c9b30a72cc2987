import { InputError } from './errors';
import { DEFAULT_ZIP_LIMITS, ZipArchive, type ZipLimits } from './zip-archive';

const PDF_MAGIC = '%PDF-';
const ZIP_LOCAL_MAGIC = 0x04034b50;

/**
 * An upload's deck format by content alone (`%PDF-` within 1,024 bytes, as PDF readers allow). Every ZIP
 * entry is inflated once under the caps, so a zip bomb is refused here rather than failing later.
 */
export function identifyDeckContent(
  bytes: Buffer,
  file: string,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): 'pptx' | 'pdf' {
  if (bytes.length === 0) throw new InputError('the file is empty', { file, code: 'empty_file' });
  if (bytes.subarray(0, 1024).includes(PDF_MAGIC)) return 'pdf';
  if (bytes.length < 4 || bytes.readUInt32LE(0) !== ZIP_LOCAL_MAGIC)
    throw new InputError('not a deck: expected a PPTX (ZIP package) or a PDF (starting with %PDF-)', {
      file,
      code: 'unsupported_media_type',
    });
  const archive = ZipArchive.open(bytes, file, limits);
  if (archive.readText('ppt/presentation.xml') === undefined)
    throw new InputError('a ZIP archive without ppt/presentation.xml: not a PPTX package', {
      file,
      code: 'unsupported_media_type',
    });
  for (const name of archive.names()) archive.read(name);
  return 'pptx';
}
