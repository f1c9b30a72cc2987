import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import {
  assertSafePathPart,
  ConfigError,
  InputError,
  isXsbError,
  readJson,
  validateRecord,
  type XsbError,
} from '@xsb/core';
import { REFERENCE_DECK_NAMES } from './reference-deck';
import {
  type SourceMetadata,
  type SourceMetadataInput,
  type SourceType,
  sourceMetadataInputSchema,
  sourceMetadataSchema,
  sourceTypeSchema,
} from './schemas/source-metadata';
import type { SourceCase } from './source-types';

export const SOURCE_METADATA_FILE = 'source_metadata.json';

const DEFAULT_VALID_AUDIENCES = ['specialists', 'learners', 'decision_makers'] as const;
/** Spec 000 requires a scene on every probe. */
const DEFAULT_SCENE = 'general';

const SOURCE_TYPE_BY_EXTENSION: Readonly<Record<string, SourceType>> = {
  '.pdf': 'pdf',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.docx': 'docx',
  '.odt': 'odt',
  '.pptx': 'pptx',
};

/** Binary formats that are not read, with the format to save them as. */
const LEGACY_OFFICE_EXTENSIONS: Readonly<Record<string, string>> = {
  '.doc': '.docx',
  '.rtf': '.docx',
  '.ppt': '.pptx',
  '.odp': '.pptx',
};

export function sourceTypeForFile(file: string): SourceType | undefined {
  return SOURCE_TYPE_BY_EXTENSION[extname(file).toLowerCase()];
}

export interface DiscoveredSources {
  cases: SourceCase[];
  failures: Array<{ caseId: string; error: XsbError }>;
}

/** Every case folder `<data>/sources/<case_id>/`; a broken one is a failure, the others still load. */
export async function discoverSourceCases(dataDir: string): Promise<DiscoveredSources> {
  const sourcesDir = join(resolve(dataDir), 'sources');
  let entries: string[];
  try {
    const dirents = await readdir(sourcesDir, { withFileTypes: true });
    entries = dirents.filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such folder' : `cannot read (${(error as Error).message})`;
    throw new ConfigError(`${sourcesDir}: ${reason}; put each case in <data>/sources/<case_id>/`, {
      cause: error,
    });
  }
  entries.sort();
  const cases: SourceCase[] = [];
  const failures: DiscoveredSources['failures'] = [];
  for (const caseId of entries) {
    try {
      cases.push(await loadSourceCase(resolve(dataDir), caseId));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      failures.push({ caseId, error });
    }
  }
  return { cases, failures };
}

export async function loadSourceCase(dataDir: string, caseId: string): Promise<SourceCase> {
  const dir = join(dataDir, 'sources', assertSafePathPart(caseId, 'case id'));
  const names = await listCaseFiles(dir);
  const metadataFile = join(dir, SOURCE_METADATA_FILE);
  const input: SourceMetadataInput = (await exists(metadataFile))
    ? await readJson(metadataFile, sourceMetadataInputSchema)
    : {};
  if (input.case_id !== undefined && input.case_id !== caseId) {
    throw new InputError(
      `case_id ${JSON.stringify(input.case_id)} differs from its folder name ${JSON.stringify(caseId)}`,
      { file: metadataFile, code: 'case_id_mismatch' },
    );
  }
  const name = theOneSourceFile(names, dir);
  const sourceFile = join(dir, name);
  const info = await stat(sourceFile);
  if (!info.isFile()) {
    throw new InputError('the source must be a regular file', { file: sourceFile, code: 'not_a_file' });
  }
  const sourceType = sourceTypeOfCase(name, input, { metadataFile, sourceFile });
  const completed: SourceMetadata = validateRecord(
    sourceMetadataSchema,
    {
      ...input,
      case_id: caseId,
      title: input.title ?? input.display_name ?? caseId,
      // Relative to the data folder's parent, as in spec 000's manifest example (`data/sources/…`).
      source_path: relative(dirname(dataDir), sourceFile).split(sep).join('/'),
      source_type: sourceType,
      scene: input.scene ?? DEFAULT_SCENE,
      valid_audiences: input.valid_audiences ?? [...DEFAULT_VALID_AUDIENCES],
    },
    { file: metadataFile },
  );
  return { caseId, dir, sourceFile, sourceType, metadata: completed };
}

const isReferenceDeck = (name: string) => (REFERENCE_DECK_NAMES as readonly string[]).includes(name);

async function listCaseFiles(dir: string): Promise<string[]> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such case folder' : `cannot read the case folder (${(error as Error).message})`;
    throw new InputError(reason, { file: dir, code: 'no_case_folder', cause: error });
  }
  return dirents
    .filter((d) => !d.name.startsWith('.') && d.name !== SOURCE_METADATA_FILE && !isReferenceDeck(d.name))
    .map((d) => d.name)
    .sort();
}

export function theOneSourceFile(names: readonly string[], dir: string): string {
  if (names.length === 0) {
    throw new InputError('no source file in the case folder (expected one .pdf, .html, .md or .txt)', {
      file: dir,
      code: 'no_source_file',
    });
  }
  if (names.length > 1) {
    throw new InputError(`expected exactly one source file, found ${names.length}: ${names.join(', ')}`, {
      file: dir,
      code: 'several_source_files',
    });
  }
  return names[0]!;
}

/** The extension's type, which source_metadata.json may repeat but not contradict, else the metadata's. */
export function sourceTypeOfCase(
  name: string,
  input: SourceMetadataInput,
  files: { metadataFile: string; sourceFile: string },
): SourceType {
  if (input.source_path !== undefined && basename(input.source_path) !== name) {
    throw new InputError(
      `source_path ${JSON.stringify(input.source_path)} does not name the case's source file ${JSON.stringify(name)}`,
      { file: files.metadataFile, code: 'source_path_mismatch' },
    );
  }
  const detected = sourceTypeForFile(name);
  if (detected && input.source_type && input.source_type !== detected) {
    throw new InputError(
      `source_type ${JSON.stringify(input.source_type)} contradicts the file extension of ${name} (${detected})`,
      { file: files.metadataFile, code: 'source_type_mismatch' },
    );
  }
  const sourceType = detected ?? input.source_type;
  if (sourceType) return sourceType;
  const legacy = LEGACY_OFFICE_EXTENSIONS[extname(name).toLowerCase()];
  throw new InputError(
    legacy
      ? `cannot read the binary ${extname(name)} format: save it as ${legacy} (or PDF) and replace the file`
      : `unknown source type: use a ${Object.keys(SOURCE_TYPE_BY_EXTENSION).join(', ')} file, or set source_type (${sourceTypeSchema.options.join(', ')}) in source_metadata.json when the file has another extension`,
    { file: files.sourceFile, code: 'unknown_source_type' },
  );
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new InputError(`cannot read (${(error as Error).message})`, { file, cause: error });
  }
}
