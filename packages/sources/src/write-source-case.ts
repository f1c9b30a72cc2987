import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `<dataDir>/sources/<caseId>/<fileName>` (and `source_metadata.json` when given) for tests;
 * returns the source file path.
 */
export async function writeSourceCase(
  dataDir: string,
  caseId: string,
  fileName: string,
  content: string | Uint8Array,
  metadata?: Record<string, unknown>,
): Promise<string> {
  const dir = join(dataDir, 'sources', caseId);
  await mkdir(dir, { recursive: true });
  const file = join(dir, fileName);
  await writeFile(file, content);
  if (metadata) await writeFile(join(dir, 'source_metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  return file;
}
