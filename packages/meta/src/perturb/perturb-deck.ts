import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import {
  createSeededRandom,
  type Deck,
  deriveSeed,
  hashBytes,
  InputError,
  readJsonlAll,
  writeFileAtomic,
  writeJsonlAtomic,
} from '@xsb/core';
import { detectDeckFormat, readDeck as readDeckFile } from '@xsb/decks';
import { expectedEffects } from '../evaluator-ids';
import {
  PERTURBATION_KINDS,
  type PerturbationKind,
  type PerturbationRecord,
  perturbationRecordSchema,
} from '../schemas/meta-perturbation';
import { contentSlidePositions, type KindOutcome, type PptxVariant } from './kind-outcome';
import { perturbPdf } from './pdf-kinds';
import { PptxEditor } from './pptx-editor';
import { overflowText, shrinkFonts } from './pptx-layout-kinds';
import { dropSlides, duplicateSlides, shuffleSlides } from './pptx-slide-kinds';
import { corruptNumbers, injectClaims, padWords, removeCitations, swapFacts } from './pptx-text-kinds';
import { readSlideList } from './slide-list';
import { SlideTexts } from './slide-texts';
import { verifyReadBack } from './verify-read-back';
import { scanTags, tagAttribute } from './xml-scan';

export const DEFAULT_SEVERITIES = [0.1, 0.25, 0.5] as const;
export const DEFAULT_PERTURBATION_SEED = 12;
export const PERTURBATIONS_FILE = 'perturbations.jsonl';

const PPTX_KINDS: Record<PerturbationKind, (variant: PptxVariant) => KindOutcome> = {
  drop_slides: dropSlides,
  shuffle_slides: shuffleSlides,
  corrupt_numbers: corruptNumbers,
  swap_facts: swapFacts,
  inject_claims: injectClaims,
  remove_citations: removeCitations,
  shrink_fonts: shrinkFonts,
  overflow_text: overflowText,
  pad_words: padWords,
  duplicate_slides: duplicateSlides,
};

export interface PerturbDeckOptions {
  /** The deck to damage (.pptx or .pdf, detected from its bytes). */
  deck: string;
  /** Writes `<outDir>/<kind>/<severity>/<name>.<ext>` and `<outDir>/perturbations.jsonl`. */
  outDir: string;
  kinds?: readonly PerturbationKind[];
  severities?: readonly number[];
  seed?: number;
  readDeck?: (file: string) => Promise<Deck>;
}

export interface PerturbDeckResult {
  file: string;
  records: PerturbationRecord[];
}

const posixPath = (path: string) => path.split(sep).join('/');

/** A severity must be a share in (0, 1]; anything else is the caller's error. */
export function checkSeverities(severities: readonly number[]): number[] {
  for (const severity of severities) {
    if (!Number.isFinite(severity) || severity <= 0 || severity > 1) {
      throw new RangeError(`a severity is the share of eligible units changed, in (0, 1]; got ${severity}`);
    }
  }
  return [...new Set(severities)].sort((a, b) => a - b);
}

function slideSizeOf(editor: PptxEditor, presentationPart: string): { cx: number; cy: number } | null {
  const xml = editor.text(presentationPart) ?? '';
  for (const tag of scanTags(xml)) {
    if (tag.name !== 'sldSz' || tag.kind === 'close') continue;
    const raw = xml.slice(tag.start, tag.end);
    const cx = Number(tagAttribute(raw, 'cx'));
    const cy = Number(tagAttribute(raw, 'cy'));
    return Number.isFinite(cx) && Number.isFinite(cy) && cx > 0 && cy > 0 ? { cx, cy } : null;
  }
  return null;
}

async function perturbPptx(
  bytes: Buffer,
  file: string,
  deck: Deck,
  kind: PerturbationKind,
  severity: number,
  random: () => number,
) {
  const editor = PptxEditor.open(bytes, file);
  const list = readSlideList(editor);
  if (list.entries.length !== deck.slide_count) {
    throw new InputError(
      `the slide list has ${list.entries.length} entries where the reader saw ${deck.slide_count} slides`,
      { file },
    );
  }
  const variant: PptxVariant = {
    editor,
    list,
    deck,
    texts: new SlideTexts(editor, list, deck),
    content: contentSlidePositions(deck),
    slideSize: slideSizeOf(editor, list.presentationPart),
    severity,
    random,
  };
  const outcome = PPTX_KINDS[kind](variant);
  return { outcome, bytes: outcome.skipped ? undefined : editor.toBuffer() };
}

const recordKey = (record: Pick<PerturbationRecord, 'deck' | 'kind' | 'severity'>) =>
  `${record.deck}\u0000${record.kind}\u0000${record.severity}`;

interface DeckToPerturb {
  path: string;
  name: string;
  bytes: Buffer;
  format: ReturnType<typeof detectDeckFormat>;
  original: Deck;
  sha256: string;
  outDir: string;
  seed: number;
  read: (file: string) => Promise<Deck>;
}

/** Earlier records of the output folder; another deck under the same name there is an input error. */
async function previousRecords(file: string, deck: DeckToPerturb): Promise<PerturbationRecord[]> {
  const previous = existsSync(file) ? await readJsonlAll(file, perturbationRecordSchema) : [];
  const clash = previous.find(
    (record) => record.deck === deck.name && record.original_sha256 !== deck.sha256,
  );
  if (clash)
    throw new InputError(
      `${file} already holds perturbations of another deck named "${deck.name}" (${clash.original}); write them to another folder`,
      { file, code: 'deck_name_clash' },
    );
  return previous;
}

/** One damaged copy: made, written, read back and checked; its record says what changed, or why nothing was written. */
async function perturbOnce(
  deck: DeckToPerturb,
  kind: PerturbationKind,
  severity: number,
): Promise<PerturbationRecord> {
  const random = createSeededRandom(deriveSeed(deck.seed, `${kind}@${severity}`));
  const result =
    deck.format === 'pdf'
      ? await perturbPdf(new Uint8Array(deck.bytes), deck.original, kind, severity, random)
      : await perturbPptx(deck.bytes, deck.path, deck.original, kind, severity, random);
  const { outcome } = result;
  const output = join(deck.outDir, kind, String(severity), `${deck.name}.${deck.format}`);
  const base = {
    deck: deck.name,
    original: posixPath(relative(deck.outDir, deck.path)),
    original_sha256: deck.sha256,
    format: deck.format,
    kind,
    severity,
    seed: deck.seed,
    slide_count_before: deck.original.slide_count,
    eligible_units: outcome.eligible,
    changed_units: outcome.changed,
    changes: outcome.changes,
    expected: expectedEffects(kind, outcome.overflowChecks),
  } as const;
  const unwritten = { output: null, output_sha256: null, slide_count_after: null } as const;
  if (outcome.skipped || !result.bytes) {
    await rm(output, { force: true });
    return { ...base, ...unwritten, changes: [], skipped: outcome.skipped ?? 'nothing to change' };
  }
  await writeFileAtomic(output, Buffer.from(result.bytes));
  const readBack = await deck.read(output).catch((error: Error) => error);
  const mismatch =
    readBack instanceof Error
      ? `the written deck cannot be read: ${readBack.message}`
      : verifyReadBack(outcome, readBack);
  if (mismatch || readBack instanceof Error) {
    await rm(output, { force: true });
    return { ...base, ...unwritten, error: `read-back check failed: ${mismatch}` };
  }
  return {
    ...base,
    output: posixPath(relative(deck.outDir, output)),
    output_sha256: hashBytes(result.bytes),
    slide_count_after: readBack.slide_count,
  };
}

function mergeRecords(
  previous: readonly PerturbationRecord[],
  records: readonly PerturbationRecord[],
  name: string,
): PerturbationRecord[] {
  const mine = new Set(records.map(recordKey));
  const kindOrder = (kind: string) => PERTURBATION_KINDS.indexOf(kind as PerturbationKind);
  return [
    ...previous.filter((record) => record.deck !== name && !mine.has(recordKey(record))),
    ...records,
  ].sort(
    (a, b) =>
      (a.deck < b.deck ? -1 : a.deck > b.deck ? 1 : 0) ||
      kindOrder(a.kind) - kindOrder(b.kind) ||
      a.severity - b.severity,
  );
}

/**
 * Writes a damaged copy of one deck per kind and severity, each read back and checked (else deleted, its
 * record carrying the error); other decks' records in `perturbations.jsonl` are kept, this deck's replaced.
 */
export async function perturbDeck(options: PerturbDeckOptions): Promise<PerturbDeckResult> {
  const deckPath = resolve(options.deck);
  const outDir = resolve(options.outDir);
  const kinds = options.kinds ?? PERTURBATION_KINDS;
  const severities = checkSeverities(options.severities ?? DEFAULT_SEVERITIES);
  const read = options.readDeck ?? ((file: string) => readDeckFile(file));
  const bytes = await readFile(deckPath).catch((error: Error) => {
    throw new InputError(`cannot read the deck: ${error.message}`, { file: deckPath, code: 'missing_file' });
  });
  const format = detectDeckFormat(bytes.subarray(0, 1024), deckPath);
  const deck: DeckToPerturb = {
    path: deckPath,
    name: basename(deckPath, extname(deckPath)),
    bytes,
    format,
    original: await read(deckPath),
    sha256: hashBytes(bytes),
    outDir,
    seed: options.seed ?? DEFAULT_PERTURBATION_SEED,
    read,
  };
  const file = join(outDir, PERTURBATIONS_FILE);
  const previous = await previousRecords(file, deck);
  const records: PerturbationRecord[] = [];
  for (const kind of PERTURBATION_KINDS.filter((item) => kinds.includes(item)))
    for (const severity of severities) records.push(await perturbOnce(deck, kind, severity));
  await writeJsonlAtomic(file, perturbationRecordSchema, mergeRecords(previous, records, deck.name));
  return { file, records };
}
