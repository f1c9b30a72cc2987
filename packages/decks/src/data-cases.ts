import { existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describeError, hashBytes, isXsbError, type RunLayout, readJson } from '@xsb/core';
import { discoverSourceCases } from '@xsb/sources';
import { type DeckImportManifest, deckImportManifestSchema } from './schemas/deck-import-manifest';

/** A case of the data folder: its one source file, or why it has none usable. */
export interface DataCase {
  caseId: string;
  /** `<data>/sources/<case>/<file>`; undefined when only stage 1's `probes/<case>/source_context.txt` is there. */
  sourceFile?: string;
  /** Why `<data>/sources/<case>/` cannot be used (no source file, several …). */
  problem?: string;
}

/**
 * The cases of `<data>/sources/` and `<data>/probes/<case>/source_context.txt`; empty when decks are made
 * from documents kept elsewhere and no case can be checked against the folder.
 */
export async function readDataCases(layout: RunLayout): Promise<Map<string, DataCase>> {
  const cases = new Map<string, DataCase>();
  if (existsSync(layout.sourcesDir())) {
    const discovered = await discoverSourceCases(layout.dataDir);
    for (const found of discovered.cases)
      cases.set(found.caseId, { caseId: found.caseId, sourceFile: found.sourceFile });
    for (const failure of discovered.failures)
      cases.set(failure.caseId, { caseId: failure.caseId, problem: describeError(failure.error) });
  }
  for (const name of await listFolders(layout.probesRoot())) {
    if (!cases.has(name) && existsSync(join(layout.probesRoot(), name, 'source_context.txt')))
      cases.set(name, { caseId: name });
  }
  return cases;
}

/** The visible sub-folders of a folder, sorted; none when it does not exist. */
export async function listFolders(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function readImportedSystems(
  layout: RunLayout,
  run: string,
): Promise<Map<string, DeckImportManifest>> {
  const systems = new Map<string, DeckImportManifest>();
  for (const system of await listFolders(layout.decksRoot(run))) {
    const manifest = join(layout.decksRoot(run), system, 'import_manifest.json');
    if (existsSync(manifest)) systems.set(system, await readJson(manifest, deckImportManifestSchema));
  }
  return systems;
}

export function importedDeckOf(
  manifest: DeckImportManifest | undefined,
  row: { condition: string; audience: string; case_label: string },
): DeckImportManifest['decks'][number] | undefined {
  const { condition, audience, case_label } = row;
  return manifest?.decks.find(
    (deck) => deck.case_label === case_label && deck.condition === condition && deck.audience === audience,
  );
}

/** The same file (after links) or the same bytes (a source copied into the data folder). */
export async function sameDocument(a: string, b: string, hashes: Map<string, string>): Promise<boolean> {
  const [left, right] = await Promise.all([canonical(a), canonical(b)]);
  if (left === right) return true;
  const [leftHash, rightHash] = await Promise.all([hashOf(left, hashes), hashOf(right, hashes)]);
  return leftHash !== undefined && leftHash === rightHash;
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

async function hashOf(path: string, hashes: Map<string, string>): Promise<string | undefined> {
  const known = hashes.get(path);
  if (known !== undefined) return known;
  try {
    const hash = hashBytes(await readFile(path));
    hashes.set(path, hash);
    return hash;
  } catch (error) {
    if (isXsbError(error)) throw error;
    return undefined;
  }
}
