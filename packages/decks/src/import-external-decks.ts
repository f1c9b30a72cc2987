import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import {
  assertSafePathPart,
  type Condition,
  conditionSchema,
  describeError,
  didYouMean,
  hashBytes,
  InputError,
  isXsbError,
  type RunLayout,
  readJson,
  UsageError,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { type DataCase, readDataCases } from './data-cases';
import { readDeck } from './read-deck';
import { rowDeckDir } from './run-deck-rows';
import { type DeckImportManifest, deckImportManifestSchema } from './schemas/deck-import-manifest';

export interface ImportDecksOptions {
  system: string;
  fromDir: string;
  layout: RunLayout;
  run: string;
  /** Condition and audience for files lying directly in `fromDir` (defaults: audience_agnostic, all). */
  condition?: Condition;
  audience?: string;
  force?: boolean;
  /** Audience ids a conditioned deck may be filed under (built-in and user profiles); unchecked when absent. */
  audiences?: readonly string[];
  /** Refuse decks with no slides or no visible words instead of importing them with a warning. */
  strict?: boolean;
}

export interface ImportDecksResult {
  manifest: DeckImportManifest;
  manifestFile: string;
  imported: string[];
  unchanged: string[];
  skipped: Array<{ file: string; reason: string }>;
  /** Decks imported although they have no slides or no visible words (refused with `strict`). */
  warnings: string[];
}

interface Candidate {
  file: string;
  condition: string;
  audience: string;
}

const DECK_EXTENSIONS = new Set(['.pdf', '.pptx']);

/** `<case>.pdf` at the top, `<condition>/<audience>/<case>.pdf` below it. */
async function findCandidates(
  options: ImportDecksOptions,
  skipped: ImportDecksResult['skipped'],
): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const sorted = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const visit = async (dir: string, where: { condition: string; audience: string }, depth: number) => {
    for (const entry of await sorted(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth === 0 && conditionSchema.safeParse(entry.name).success) {
          for (const audience of await sorted(path)) {
            if (audience.isDirectory()) {
              await visit(join(path, audience.name), { condition: entry.name, audience: audience.name }, 2);
            }
          }
        } else if (depth === 0) {
          skipped.push({
            file: path,
            reason: 'a folder that is not a condition (audience_agnostic | audience_conditioned)',
          });
        }
        continue;
      }
      if (!entry.isFile()) continue;
      if (!DECK_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        skipped.push({ file: path, reason: 'not a .pdf or .pptx deck' });
        continue;
      }
      found.push({ file: path, ...where });
    }
  };
  const condition = options.condition ?? 'audience_agnostic';
  await visit(options.fromDir, { condition, audience: options.audience ?? 'all' }, 0);
  return found;
}

/**
 * Imports exported decks (NotebookLM PDFs and the like) into the deck tree, listed in
 * `decks/<system>/import_manifest.json`; changed content is replaced only with `force`.
 */
export async function importExternalDecks(options: ImportDecksOptions): Promise<ImportDecksResult> {
  const system = assertSafePathPart(options.system, 'system');
  const skipped: ImportDecksResult['skipped'] = [];
  if (!existsSync(options.fromDir) || !(await stat(options.fromDir)).isDirectory()) {
    throw new InputError('not a folder of exported decks', { file: options.fromDir, code: 'missing_folder' });
  }
  const manifestFile = join(options.layout.decksRoot(options.run), system, 'import_manifest.json');
  const previous = existsSync(manifestFile)
    ? await readJson(manifestFile, deckImportManifestSchema)
    : undefined;
  const entries = new Map<string, ManifestDeck>();
  for (const deck of previous?.decks ?? [])
    entries.set(`${deck.condition}/${deck.audience}/${deck.case_label}`, deck);

  const candidates = await findCandidates(options, skipped);
  const { ready, warnings, problems, unknownAudience } = await checkCandidates(
    candidates,
    await readDataCases(options.layout),
    options,
    skipped,
  );
  if (problems.length > 0) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    throw new UsageError(
      `${options.fromDir}: ${count}; no deck was imported:\n${problems.map((problem) => `  ${problem}`).join('\n')}`,
      { code: 'invalid_import', details: { problems, fields: unknownAudience ? ['audience'] : [] } },
    );
  }
  const outcome: CopyOutcome = { imported: [], unchanged: [], skipped };
  for (const candidate of ready) {
    try {
      const deck = await copyCandidate(options, system, candidate, outcome);
      if (deck) entries.set(`${deck.condition}/${deck.audience}/${deck.case_label}`, deck);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      skipped.push({ file: candidate.file, reason: describeError(error) });
    }
  }
  const manifest = await writeManifest(manifestFile, system, options.fromDir, entries, skipped);
  return { manifest, manifestFile, ...outcome, warnings };
}

type ManifestDeck = DeckImportManifest['decks'][number];

type CopyOutcome = Pick<ImportDecksResult, 'imported' | 'unchanged' | 'skipped'>;

/** Copies one checked deck into its deck folder; undefined when skipped. */
async function copyCandidate(
  options: ImportDecksOptions,
  system: string,
  candidate: Candidate,
  outcome: CopyOutcome,
): Promise<ManifestDeck | undefined> {
  const { layout } = options;
  const extension = extname(candidate.file).toLowerCase();
  const caseLabel = basename(candidate.file, extname(candidate.file));
  const deckDir = rowDeckDir(layout, options.run, { ...candidate, system, case_label: caseLabel });
  const bytes = await readFile(candidate.file);
  const sha256 = hashBytes(bytes);
  const target = join(deckDir, `${caseLabel}${extension}`);
  const existing = existsSync(target) ? hashBytes(await readFile(target)) : undefined;
  if (existing === sha256) outcome.unchanged.push(target);
  else if (existing !== undefined && !options.force) {
    outcome.skipped.push({
      file: candidate.file,
      reason: `${relative(layout.dataDir, target)} exists with other content (forcing the import replaces it)`,
    });
    return undefined;
  } else {
    await writeFileAtomic(target, bytes);
    outcome.imported.push(target);
  }
  return {
    case_label: caseLabel,
    condition: candidate.condition,
    audience: candidate.audience,
    source_file: basename(candidate.file),
    deck_path: relative(layout.dataDir, target),
    sha256,
  };
}

/** No timestamps, written only when its text changed. */
async function writeManifest(
  manifestFile: string,
  system: string,
  sourceDir: string,
  entries: Map<string, ManifestDeck>,
  skipped: ImportDecksResult['skipped'],
): Promise<DeckImportManifest> {
  const manifest: DeckImportManifest = {
    system,
    source_dir: sourceDir,
    decks: [...entries.values()].sort(
      (a, b) =>
        a.case_label.localeCompare(b.case_label) ||
        a.condition.localeCompare(b.condition) ||
        a.audience.localeCompare(b.audience),
    ),
    skipped: skipped.map((item) => ({ file: item.file, reason: item.reason })),
  };
  const text = JSON.stringify(deckImportManifestSchema.parse(manifest), null, 2);
  const current = existsSync(manifestFile) ? await readFile(manifestFile, 'utf8') : '';
  if (current !== `${text}\n`) await writeJson(manifestFile, deckImportManifestSchema, manifest);
  return manifest;
}

/** Checks every deck before any is imported; an unreadable one is skipped with the reason. */
async function checkCandidates(
  candidates: Candidate[],
  cases: Map<string, DataCase>,
  options: ImportDecksOptions,
  skipped: ImportDecksResult['skipped'],
): Promise<{ ready: Candidate[]; warnings: string[]; problems: string[]; unknownAudience: boolean }> {
  const ready: Candidate[] = [];
  const warnings: string[] = [];
  const problems: string[] = [];
  let unknownAudience = false;
  for (const candidate of candidates) {
    const name = basename(candidate.file);
    const caseLabel = basename(candidate.file, extname(candidate.file));
    const where = relative(options.fromDir, candidate.file);
    let fine = true;
    if (cases.size > 0 && !cases.has(caseLabel)) {
      fine = false;
      problems.push(
        `${where}: the file name "${name}" names no case of the data folder${suggestCase(caseLabel, [...cases.keys()])}; name each deck <case_label>${extname(name)} (cases: ${[...cases.keys()].sort().join(', ')})`,
      );
    }
    const { audiences } = options;
    if (
      audiences &&
      candidate.condition === 'audience_conditioned' &&
      !audiences.includes(candidate.audience)
    ) {
      fine = false;
      unknownAudience = true;
      problems.push(
        `${where}: unknown audience "${candidate.audience}"${didYouMean(candidate.audience, audiences)} (known: ${audiences.join(', ')})`,
      );
    }
    let deck: Awaited<ReturnType<typeof readDeck>>;
    try {
      deck = await readDeck(candidate.file);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      skipped.push({ file: candidate.file, reason: describeError(error) });
      continue;
    }
    const empty =
      deck.slide_count === 0 ? 'no slides' : deck.visible_word_count === 0 ? 'no visible words' : undefined;
    if (empty) {
      const message = `${where}: the deck has ${empty}`;
      if (options.strict) {
        fine = false;
        problems.push(`${message} (refused in strict mode)`);
      } else warnings.push(`${message}; imported anyway (strict mode refuses it)`);
    }
    if (fine) ready.push(candidate);
  }
  return { ready, warnings, problems, unknownAudience };
}

/** The nearest case label, else the longest one the name holds (exports get titles: "Topo export.pdf"). */
function suggestCase(name: string, cases: readonly string[]): string {
  const near = didYouMean(name, cases);
  if (near) return near;
  const normal = name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_');
  const contained = cases
    .filter((label) => normal.includes(label.toLowerCase()))
    .sort((a, b) => b.length - a.length)[0];
  return contained ? ` (did you mean "${contained}"?)` : '';
}
