import { existsSync } from 'node:fs';
import { readdir, rm, rmdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  assertSafePathPart,
  conditionSchema,
  didYouMean,
  type RunLayout,
  readJson,
  UsageError,
  writeJson,
} from '@xsb/core';
import { listFolders } from './data-cases';
import { deckImportManifestSchema } from './schemas/deck-import-manifest';

export interface RemoveSystemOptions {
  layout: RunLayout;
  run: string;
  system: string;
  /** Only this case's decks and evaluations; the whole system when absent. */
  caseLabel?: string;
}

export interface RemoveSystemResult {
  system: string;
  caseLabel: string | null;
  /** What was deleted, relative to the data folder, in order. */
  removed: string[];
}

/** `<system>__<condition>`: the id @xsb/metrics files compact metrics under. */
const SYSTEM_ID_SEPARATOR = '__';

/** The run's deck tree and evaluation trees (`evaluations/` and the bench's `evaluations@<variant>/`). */
async function systemRoots(layout: RunLayout, run: string): Promise<string[]> {
  const variants = (await listFolders(layout.runDir(run))).filter((name) => name.startsWith('evaluations@'));
  return [
    layout.decksRoot(run),
    layout.evaluationsRoot(run),
    ...variants.map((name) => join(layout.runDir(run), name)),
  ];
}

export async function listRunSystems(layout: RunLayout, run: string): Promise<string[]> {
  const names = new Set<string>();
  for (const root of await systemRoots(layout, run))
    for (const name of await listFolders(root)) names.add(name);
  return [...names].sort();
}

async function caseFolders(systemDir: string, caseLabel: string): Promise<string[]> {
  const found: string[] = [];
  for (const condition of await listFolders(systemDir))
    for (const audience of await listFolders(join(systemDir, condition))) {
      const dir = join(systemDir, condition, audience, caseLabel);
      if (existsSync(dir)) found.push(dir);
    }
  return found;
}

function metricsFolders(layout: RunLayout, run: string, system: string): string[] {
  return conditionSchema.options
    .map((condition) => join(layout.metricsRoot(run), `${system}${SYSTEM_ID_SEPARATOR}${condition}`))
    .filter((dir) => existsSync(dir));
}

async function targetsOf(options: RemoveSystemOptions): Promise<string[]> {
  const { layout, run, system, caseLabel } = options;
  const roots = (await systemRoots(layout, run)).map((root) => join(root, system));
  const metrics = metricsFolders(layout, run, system);
  if (caseLabel === undefined) return [...roots, ...metrics].filter((path) => existsSync(path));
  const targets: string[] = [];
  for (const root of roots) targets.push(...(await caseFolders(root, caseLabel)));
  for (const dir of metrics)
    for (const audience of await listFolders(dir)) {
      const file = join(dir, audience, `${caseLabel}.json`);
      if (existsSync(file)) targets.push(file);
    }
  return targets;
}

async function pruneEmptyTree(dir: string): Promise<void> {
  for (const name of await listFolders(dir)) await pruneEmptyTree(join(dir, name));
  try {
    if ((await readdir(dir)).length === 0) await rmdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Drops the case from the system's import manifest, so a later run sheet does not count on its deck. */
async function forgetImportedCase(options: RemoveSystemOptions): Promise<string | undefined> {
  const { layout, run, system, caseLabel } = options;
  const file = join(layout.decksRoot(run), system, 'import_manifest.json');
  if (caseLabel === undefined || !existsSync(file)) return undefined;
  const manifest = await readJson(file, deckImportManifestSchema);
  const decks = manifest.decks.filter((deck) => deck.case_label !== caseLabel);
  if (decks.length === manifest.decks.length) return undefined;
  if (decks.length === 0) {
    await rm(file);
    return file;
  }
  await writeJson(file, deckImportManifestSchema, { ...manifest, decks });
  return undefined;
}

/**
 * Removes a system (or one case of it) from a run: decks, evaluations, metric copies, import manifest
 * entries. The run's summary is not touched: `xsb aggregate` rewrites it.
 */
export async function removeSystemFromRun(options: RemoveSystemOptions): Promise<RemoveSystemResult> {
  const { layout, run } = options;
  const system = assertSafePathPart(options.system, 'system');
  if (options.caseLabel !== undefined) assertSafePathPart(options.caseLabel, 'case label');
  const known = await listRunSystems(layout, run);
  if (!known.includes(system)) {
    throw new UsageError(
      `unknown system "${system}" in run ${run}${didYouMean(system, known)} (known: ${known.length > 0 ? known.join(', ') : 'none; the run has no decks or evaluations'})`,
      { code: 'unknown_system' },
    );
  }
  const targets = await targetsOf({ ...options, system });
  if (targets.length === 0) {
    throw new UsageError(
      `system "${system}" has no deck or evaluation of case "${options.caseLabel}" in run ${run}`,
      { code: 'unknown_case' },
    );
  }
  const removed: string[] = [];
  const manifest = await forgetImportedCase({ ...options, system });
  if (manifest) removed.push(manifest);
  for (const target of targets) {
    await rm(target, { recursive: true, force: true });
    removed.push(target);
  }
  if (options.caseLabel !== undefined) {
    const trees = [
      ...(await systemRoots(layout, run)).map((root) => join(root, system)),
      ...metricsFolders(layout, run, system),
    ];
    for (const tree of trees) await pruneEmptyTree(tree);
  }
  return {
    system,
    caseLabel: options.caseLabel ?? null,
    removed: removed.map((path) => relative(layout.dataDir, path).split(sep).join('/')),
  };
}
