import { copyFile, lstat, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { writeFileAtomic } from './atomic-write';
import { compareCodePoints } from './compare-code-points';
import { LOCK_DIR_NAME } from './directory-lock';
import { InputError, UsageError } from './errors';
import { hashFile } from './hash-content';
import { plural } from './plural';
import { decodeUtf8Text } from './read-utf8-text';

/** One copy of a file in one of the trees being merged. */
export interface MergePart {
  /** The `into` folder or a shard folder. */
  tree: string;
  /** `/`-separated, inside the tree. */
  path: string;
  file: string;
}

/** Merges the files each shard writes under its own name into the one file an unsharded run writes. */
export interface ShardFileCombiner {
  name: string;
  /** The merged file a path contributes to, or undefined when it is not one of its parts. */
  targetOf(path: string): string | undefined;
  /** Undefined when the parts do not make a whole (a shard is missing): they are then copied as they are. */
  combine(target: string, parts: readonly MergePart[]): Promise<Uint8Array | undefined>;
}

export interface AppendOnlyRule {
  matches(path: string): boolean;
  /** Lines with the same value of this field are one entry (kept once); without it every line counts. */
  uniqueBy?: string;
}

/** Usage ledgers, the bench's test ledger and record mode's pending prompts (one line per key). */
export const DEFAULT_APPEND_ONLY_RULES: readonly AppendOnlyRule[] = [
  { matches: (path) => basename(path) === 'usage_ledger.jsonl' },
  { matches: (path) => path === 'bench/test_ledger.jsonl' },
  { matches: (path) => path.endsWith('.pending.jsonl'), uniqueBy: 'key' },
];

export interface MergeShardTreesOptions {
  /** It may already hold data (its files take part in the conflict rule). */
  into: string;
  shards: readonly string[];
  combiners?: readonly ShardFileCombiner[];
  appendOnly?: readonly AppendOnlyRule[];
}

export interface MergeReport {
  /** Files written into `into` (new, concatenated or combined). */
  written: number;
  /** Files already in `into` with the same bytes, and copies that several shards held alike. */
  identical: number;
  concatenated: Array<{ path: string; lines: number; added: number }>;
  combined: Array<{ path: string; parts: string[] }>;
  skipped: string[];
}

/** A lock folder (`.xsb.lock`, or one a takeover moved aside) or a temp file of an atomic write. */
function isTransient(name: string, isDirectory: boolean): boolean {
  if (isDirectory) return name === LOCK_DIR_NAME || name.startsWith(`${LOCK_DIR_NAME}.stale-`);
  return name.endsWith('.tmp');
}

async function walkTree(tree: string, parts: Map<string, MergePart[]>, skipped: Set<string>): Promise<void> {
  const visit = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      compareCodePoints(a.name, b.name),
    );
    for (const entry of entries) {
      const file = join(dir, entry.name);
      const path = relative(tree, file).split(sep).join('/');
      if (isTransient(entry.name, entry.isDirectory())) {
        skipped.add(path);
        continue;
      }
      if (entry.isSymbolicLink())
        throw new InputError('is a symbolic link; a merge copies regular files and folders only', {
          file,
          code: 'merge_symlink',
        });
      if (entry.isDirectory()) await visit(file);
      else if (entry.isFile()) {
        const list = parts.get(path) ?? [];
        list.push({ tree, path, file });
        parts.set(path, list);
      }
    }
  };
  await visit(tree);
}

function checkTrees(into: string, shards: readonly string[]): string[] {
  if (shards.length === 0) throw new UsageError('a merge needs at least one shard folder');
  const target = resolve(into);
  const seen = new Set<string>();
  for (const shard of shards.map((s) => resolve(s))) {
    if (seen.has(shard)) throw new UsageError(`shard folder ${shard} is named twice`);
    seen.add(shard);
    const inside = (a: string, b: string) => a === b || a.startsWith(`${b}${sep}`);
    if (inside(target, shard) || inside(shard, target))
      throw new UsageError(`target folder ${target} and shard folder ${shard} must not contain one another`);
  }
  return [...seen];
}

async function requireDirectory(dir: string, what: string, mayBeMissing: boolean): Promise<boolean> {
  try {
    const info = await lstat(dir);
    if (!info.isDirectory()) throw new UsageError(`${what} ${dir} is not a folder`);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (mayBeMissing) return false;
    throw new UsageError(`${what} ${dir} does not exist`, { code: 'missing_file' });
  }
}

interface JsonlLine {
  text: string;
  time: string;
  unique: string | undefined;
}

async function readJsonlLines(file: string, uniqueBy: string | undefined): Promise<JsonlLine[]> {
  const lines: JsonlLine[] = [];
  decodeUtf8Text(await readFile(file), file)
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new InputError(`line ${index + 1} is not JSON; an append-only file is merged line by line`, {
          file,
          code: 'merge_bad_line',
        });
      }
      const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const time = typeof record.time === 'string' ? record.time : '';
      const unique = uniqueBy === undefined ? undefined : JSON.stringify(record[uniqueBy] ?? null);
      lines.push({ text, time, unique });
    });
  return lines;
}

const byTimeThenText = (a: JsonlLine, b: JsonlLine) =>
  compareCodePoints(a.time, b.time) || compareCodePoints(a.text, b.text);

/** `into`'s lines plus the shards' lines it lacks (a multiset: a rerun adds nothing), by time, then text. */
async function concatenate(
  parts: readonly MergePart[],
  into: string,
  rule: AppendOnlyRule,
): Promise<{ text: string; lines: number; added: number }> {
  const existingPart = parts.find((part) => part.tree === into);
  const existing = existingPart ? await readJsonlLines(existingPart.file, rule.uniqueBy) : [];
  const held = new Map<string, number>();
  for (const line of existing) held.set(line.text, (held.get(line.text) ?? 0) + 1);
  const merged = [...existing];
  for (const part of parts) {
    if (part === existingPart) continue;
    const counts = new Map(held);
    for (const line of await readJsonlLines(part.file, rule.uniqueBy)) {
      const left = counts.get(line.text) ?? 0;
      if (left > 0) counts.set(line.text, left - 1);
      else merged.push(line);
    }
  }
  merged.sort(byTimeThenText);
  const seen = new Set<string>();
  const kept =
    rule.uniqueBy === undefined
      ? merged
      : merged.filter((line) => {
          if (seen.has(line.unique!)) return false;
          seen.add(line.unique!);
          return true;
        });
  return {
    text: kept.map((line) => `${line.text}\n`).join(''),
    lines: kept.length,
    added: kept.length - existing.length,
  };
}

async function copyAtomic(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const temp = join(dirname(to), `.${basename(to)}.${process.pid}.merge.tmp`);
  try {
    await copyFile(from, temp);
    await rename(temp, to);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

function conflictError(conflicts: string[]): InputError {
  const shown = conflicts.slice(0, 10).join('; ');
  const more = conflicts.length > 10 ? ` (and ${conflicts.length - 10} more)` : '';
  return new InputError(
    `${plural(conflicts.length, 'conflicting file')}, nothing was written: ${shown}${more}. A path must hold the same bytes in every tree; a shard that redid another's case, or a target folder from another run, differs`,
    { code: 'merge_conflict', details: { conflicts } },
  );
}

/**
 * `xsb merge`: shard trees into the tree the unsharded run would have written. Every file is checked
 * before any is written, each is written atomically, and every rule is idempotent so a rerun finishes.
 */
export async function mergeShardTrees(options: MergeShardTreesOptions): Promise<MergeReport> {
  const into = resolve(options.into);
  const shards = checkTrees(into, options.shards);
  for (const shard of shards) await requireDirectory(shard, 'shard folder', false);
  const intoExists = await requireDirectory(into, 'target folder', true);
  const parts = new Map<string, MergePart[]>();
  const skipped = new Set<string>();
  for (const tree of intoExists ? [into, ...shards] : shards) await walkTree(tree, parts, skipped);
  const paths = [...parts.keys()].sort(compareCodePoints);
  checkFileFolderClashes(paths, parts);
  const sorted = await agreeOnCopies(paths, parts, options.appendOnly ?? DEFAULT_APPEND_ONLY_RULES, into);
  const combining = await combineShardFiles(sorted.agreed, options.combiners ?? [], into);
  const writes = combining.writes;
  const concatenated: MergeReport['concatenated'] = [];
  let identical = sorted.identical;
  for (const [path, rule] of sorted.appendOnly) {
    const result = await concatenate(parts.get(path)!, into, rule);
    concatenated.push({ path, lines: result.lines, added: result.added });
    if (result.added !== 0 || !parts.get(path)!.some((part) => part.tree === into))
      writes.push({ path, bytes: Buffer.from(result.text) });
    else identical += 1;
  }
  for (const [path, part] of sorted.agreed) if (part.tree !== into) writes.push({ path, from: part.file });
  await writeMerged(into, writes, combining.removals);
  return {
    written: writes.length,
    identical,
    concatenated,
    combined: combining.combined,
    skipped: [...skipped].sort(compareCodePoints),
  };
}

/** A file of one tree where another tree needs a folder of the same path is a conflict. */
function checkFileFolderClashes(paths: readonly string[], parts: ReadonlyMap<string, MergePart[]>): void {
  for (const path of paths) {
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i += 1) {
      const folder = segments.slice(0, i).join('/');
      const clash = parts.get(folder);
      if (clash)
        throw conflictError([
          `${clash[0]!.file} is a file but ${parts.get(path)![0]!.file} needs ${folder} to be a folder`,
        ]);
    }
  }
}

/** Append-only files apart, every path's copies must hold the same bytes; `agreed` prefers `into`'s copy. */
async function agreeOnCopies(
  paths: readonly string[],
  parts: ReadonlyMap<string, MergePart[]>,
  rules: readonly AppendOnlyRule[],
  into: string,
) {
  const conflicts: string[] = [];
  const agreed = new Map<string, MergePart>();
  const appendOnly = new Map<string, AppendOnlyRule>();
  let identical = 0;
  for (const path of paths) {
    const copies = parts.get(path)!;
    const rule = rules.find((candidate) => candidate.matches(path));
    if (rule) {
      appendOnly.set(path, rule);
      continue;
    }
    const hashes = await Promise.all(copies.map((copy) => hashFile(copy.file)));
    const differing = hashes.findIndex((hash) => hash !== hashes[0]);
    if (differing >= 0)
      conflicts.push(`${path} differs between ${copies[0]!.file} and ${copies[differing]!.file}`);
    else {
      identical += copies.length - 1;
      agreed.set(path, copies.find((copy) => copy.tree === into) ?? copies[0]!);
    }
  }
  if (conflicts.length > 0) throw conflictError(conflicts);
  return { agreed, appendOnly, identical };
}

interface MergeWrite {
  path: string;
  bytes?: Uint8Array;
  from?: string;
}

/** Parts that make a whole leave `agreed` for their combined file; `into`'s own parts are removed. */
async function combineShardFiles(
  agreed: Map<string, MergePart>,
  combiners: readonly ShardFileCombiner[],
  into: string,
) {
  const byTarget = new Map<string, { combiner: ShardFileCombiner; parts: MergePart[] }>();
  for (const [path, part] of agreed) {
    const combiner = combiners.find((candidate) => candidate.targetOf(path) !== undefined);
    if (!combiner) continue;
    const target = combiner.targetOf(path)!;
    const group = byTarget.get(target) ?? { combiner, parts: [] };
    group.parts.push(part);
    byTarget.set(target, group);
  }
  const conflicts: string[] = [];
  const writes: MergeWrite[] = [];
  const removals: string[] = [];
  const combined: MergeReport['combined'] = [];
  for (const [target, group] of [...byTarget].sort(([a], [b]) => compareCodePoints(a, b))) {
    const bytes = await group.combiner.combine(target, group.parts);
    if (bytes === undefined) continue;
    const existing = agreed.get(target);
    if (!existing) writes.push({ path: target, bytes });
    else if (Buffer.compare(await readFile(existing.file), Buffer.from(bytes)) !== 0)
      conflicts.push(
        `${target}: ${existing.file} differs from what its shard parts (${group.parts.map((p) => p.file).join(', ')}) combine to`,
      );
    for (const part of group.parts) {
      agreed.delete(part.path);
      if (part.tree === into) removals.push(part.file);
    }
    combined.push({ path: target, parts: group.parts.map((part) => part.path) });
  }
  if (conflicts.length > 0) throw conflictError(conflicts);
  return { writes, removals, combined };
}

async function writeMerged(into: string, writes: MergeWrite[], removals: readonly string[]): Promise<void> {
  writes.sort((a, b) => compareCodePoints(a.path, b.path));
  for (const write of writes) {
    const to = join(into, ...write.path.split('/'));
    if (write.bytes) await writeFileAtomic(to, write.bytes);
    else await copyAtomic(write.from!, to);
  }
  for (const file of removals) await rm(file, { force: true });
}
