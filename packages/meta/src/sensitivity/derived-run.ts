import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type Condition, compareCodePoints, hashFile, RunLayout, readJsonlAll, UsageError } from '@xsb/core';
import { discoverDeckRows } from '@xsb/eval';
import { PERTURBATIONS_FILE } from '../perturb/perturb-deck';
import { type PerturbationRecord, perturbationRecordSchema } from '../schemas/meta-perturbation';

/** One deck of the derived run: an original of the run, or one of its perturbations. */
export interface DerivedDeck {
  /** `<system>/<condition>/<deck audience>/<case>` of the original in the source run. */
  deck: string;
  system: string;
  condition: Condition;
  deckAudience: string;
  caseLabel: string;
  originalSha256: string;
  /** `original`, or `<kind>@<severity>@<seed>`. */
  variant: string;
  /** The system folder in the derived run: `<system>@<variant>`. */
  variantSystem: string;
  record: PerturbationRecord | null;
  deckFile: string;
}

export interface DerivedRun {
  run: string;
  decks: DerivedDeck[];
  /** Perturbations that could not be placed (their original is not a deck of the run, the file is gone …). */
  failures: Array<{ where: string; error: string }>;
  /** Skipped perturbations (kind not applicable), kept for the report. */
  skipped: PerturbationRecord[];
}

async function findPerturbationFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new UsageError(`perturbations folder ${path} does not exist`, { code: 'missing_file' });
  if (info.isFile()) return [path];
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      compareCodePoints(a.name, b.name),
    )) {
      if (entry.isDirectory()) await walk(join(dir, entry.name), depth + 1);
      else if (entry.name === PERTURBATIONS_FILE) found.push(join(dir, entry.name));
    }
  };
  await walk(path, 0);
  if (found.length === 0)
    throw new UsageError(
      `perturbations folder ${path} holds no ${PERTURBATIONS_FILE} (perturb the decks first)`,
      { remedy: { step: 'perturb' } },
    );
  return found;
}

async function copyIfChanged(from: string, to: string): Promise<void> {
  if (existsSync(to) && (await hashFile(to)) === (await hashFile(from))) return;
  await mkdir(dirname(to), { recursive: true });
  await copyFile(from, `${to}.tmp`);
  await rename(`${to}.tmp`, to);
}

type DeckRow = Awaited<ReturnType<typeof discoverDeckRows>>['rows'][number];

interface Collected {
  decks: DerivedDeck[];
  failures: DerivedRun['failures'];
  skipped: PerturbationRecord[];
  originalsUsed: Map<string, DeckRow & { sha: string }>;
  seen: Set<string>;
}

async function decksBySha(rows: readonly DeckRow[]): Promise<Map<string, DeckRow[]>> {
  const bySha = new Map<string, DeckRow[]>();
  for (const row of rows) {
    const sha = await hashFile(row.deckFile);
    bySha.set(sha, [...(bySha.get(sha) ?? []), row]);
  }
  return bySha;
}

/** Why a record yields no deck to evaluate (skipped is not a failure), or its original decks and output file. */
function recordProblem(
  record: PerturbationRecord,
  file: string,
  run: string,
  bySha: ReadonlyMap<string, DeckRow[]>,
): { where: string; error: string } | undefined {
  if (record.error || !record.output)
    return {
      where: file,
      error: `${record.deck} ${record.kind} ${record.severity}: ${record.error ?? 'no output'}`,
    };
  if (!bySha.has(record.original_sha256))
    return {
      where: file,
      error: `${record.deck}: its original (${record.original}) is not a deck of run "${run}" (matched by content hash)`,
    };
  const output = resolve(dirname(file), record.output);
  if (!existsSync(output))
    return { where: output, error: 'the perturbed deck listed in perturbations.jsonl is missing' };
  return undefined;
}

function derivedDeck(
  row: DeckRow,
  sha: string,
  variant: string,
  record: PerturbationRecord | null,
  deckFile: string,
): DerivedDeck {
  return {
    deck: `${row.system}/${row.condition}/${row.deckAudience}/${row.caseLabel}`,
    system: row.system,
    condition: row.condition,
    deckAudience: row.deckAudience,
    caseLabel: row.caseLabel,
    originalSha256: sha,
    variant,
    variantSystem: `${row.system}@${variant}`,
    record,
    deckFile,
  };
}

function addVariantDecks(
  collected: Collected,
  record: PerturbationRecord,
  output: string,
  matches: DeckRow[],
): void {
  const variant = `${record.kind}@${record.severity}@${record.seed}`;
  for (const row of matches) {
    const deck = derivedDeck(row, record.original_sha256, variant, record, output);
    const key = `${deck.deck}\u0000${variant}`;
    if (collected.seen.has(key)) continue;
    collected.seen.add(key);
    collected.originalsUsed.set(deck.deck, { ...row, sha: record.original_sha256 });
    collected.decks.push(deck);
  }
}

async function collectPerturbations(
  perturbationPaths: readonly string[],
  run: string,
  bySha: ReadonlyMap<string, DeckRow[]>,
): Promise<Collected> {
  const collected: Collected = {
    decks: [],
    failures: [],
    skipped: [],
    originalsUsed: new Map(),
    seen: new Set(),
  };
  for (const path of perturbationPaths)
    for (const file of await findPerturbationFiles(resolve(path)))
      for (const record of await readJsonlAll(file, perturbationRecordSchema)) {
        if (record.skipped) {
          collected.skipped.push(record);
          continue;
        }
        const problem = recordProblem(record, file, run, bySha);
        if (problem) collected.failures.push(problem);
        else
          addVariantDecks(
            collected,
            record,
            resolve(dirname(file), record.output!),
            bySha.get(record.original_sha256)!,
          );
      }
  for (const row of collected.originalsUsed.values())
    collected.decks.push(derivedDeck(row, row.sha, 'original', null, row.deckFile));
  return collected;
}

async function placeDecks(layout: RunLayout, derived: string, decks: DerivedDeck[]): Promise<void> {
  const wanted = new Set<string>();
  for (const deck of decks) {
    const target = join(
      layout.deckDir({
        run: derived,
        system: deck.variantSystem,
        condition: deck.condition,
        audience: deck.deckAudience,
        caseLabel: deck.caseLabel,
      }),
      basename(deck.record ? deck.record.output! : deck.deckFile),
    );
    await copyIfChanged(deck.deckFile, target);
    wanted.add(dirname(target));
    deck.deckFile = target;
  }
  await pruneDeckTree(layout.decksRoot(derived), wanted);
}

/**
 * Builds `runs/<run>@meta/decks/<system>@<variant>/…` so stage 5 evaluates each perturbed deck as its
 * original (same probes, weights, source); originals matched by content hash, stale folders removed.
 */
export async function buildDerivedRun(
  dataDir: string,
  run: string,
  perturbationPaths: readonly string[],
): Promise<DerivedRun> {
  const layout = new RunLayout(dataDir);
  const derived = `${run}@meta`;
  if (!existsSync(layout.decksRoot(run))) {
    throw new UsageError(`run "${run}" has no deck folder (${layout.decksRoot(run)})`);
  }
  const { rows } = await discoverDeckRows(layout, run);
  const { decks, failures, skipped } = await collectPerturbations(
    perturbationPaths,
    run,
    await decksBySha(rows),
  );
  if (decks.length === 0) {
    const why =
      failures.length > 0
        ? failures.map((failure) => failure.error).join('; ')
        : 'every perturbation was skipped';
    throw new UsageError(`no perturbed deck of run "${run}" to evaluate: ${why}`);
  }
  decks.sort((a, b) => compareCodePoints(a.deck, b.deck) || compareCodePoints(a.variant, b.variant));
  await placeDecks(layout, derived, decks);
  return { run: derived, decks, failures, skipped };
}

/** Removes case folders of the derived deck tree that are not wanted any more (and folders left empty). */
async function pruneDeckTree(root: string, wanted: ReadonlySet<string>): Promise<void> {
  if (!existsSync(root)) return;
  const walk = async (dir: string, depth: number): Promise<boolean> => {
    if (depth === 4) {
      if (wanted.has(dir)) return true;
      await rm(dir, { recursive: true, force: true });
      return false;
    }
    let keep = false;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) {
        keep = true;
        continue;
      }
      if (await walk(join(dir, entry.name), depth + 1)) keep = true;
    }
    if (!keep && depth > 0) await rm(dir, { recursive: true, force: true });
    return keep;
  };
  await walk(root, 0);
}
