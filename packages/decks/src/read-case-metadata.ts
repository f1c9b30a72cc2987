import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readJson } from '@xsb/core';
import { SOURCE_METADATA_FILE, type SourceMetadataInput, sourceMetadataInputSchema } from '@xsb/sources';

/**
 * The `source_metadata.json` of a run-sheet row's case: the one beside the source document (stage
 * 1's case folder, or a user's own folder), else the case folder of the data tree
 * (`<data>/sources/<case>/`). No file is no metadata; a file that is not valid JSON or has fields of
 * the wrong type is an InputError naming it (the row fails, the batch goes on).
 */
export async function readCaseMetadata(
  sourceDocument: string,
  caseMetadataFile?: string,
): Promise<{ file: string; metadata: SourceMetadataInput } | undefined> {
  const candidates = [join(dirname(sourceDocument), SOURCE_METADATA_FILE), caseMetadataFile ?? ''];
  const file = candidates.find((candidate) => candidate !== '' && existsSync(candidate));
  if (!file) return undefined;
  return { file, metadata: await readJson(file, sourceMetadataInputSchema) };
}
