import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readJson } from '@xsb/core';
import { SOURCE_METADATA_FILE, type SourceMetadataInput, sourceMetadataInputSchema } from '@xsb/sources';

/** The case's `source_metadata.json`: beside the source document, else in the data tree's case folder. */
export async function readCaseMetadata(
  sourceDocument: string,
  caseMetadataFile?: string,
): Promise<{ file: string; metadata: SourceMetadataInput } | undefined> {
  const candidates = [join(dirname(sourceDocument), SOURCE_METADATA_FILE), caseMetadataFile ?? ''];
  const file = candidates.find((candidate) => candidate !== '' && existsSync(candidate));
  if (!file) return undefined;
  return { file, metadata: await readJson(file, sourceMetadataInputSchema) };
}
