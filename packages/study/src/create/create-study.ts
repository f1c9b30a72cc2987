import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compareCodePoints,
  deriveSeed,
  hashFile,
  isXsbError,
  RunLayout,
  UsageError,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { readDeck, SlideRenderStore } from '@xsb/decks';
import { storedSlidePages } from '@xsb/design';
import { discoverDeckRows } from '@xsb/eval';
import { loadSourceCase } from '@xsb/sources';
import sharp from 'sharp';
import { type StudyKey, type StudyRecord, studyKeySchema, studyRecordSchema } from '../schemas/study-record';
import { sampleCases, seededShuffle } from './sample-cases';
import { STUDY_FILES } from './study-files';
import { renderStudyPage } from './study-page';

/** The task every annotator reads (with the case's audience and scene beside it). */
export const STUDY_TASK =
  'Rank the decks by their overall quality as a presentation for the stated audience and scene, best first.';

/** Slide images are WebP at this quality: sharp text at 960 px, a few tens of KB a slide. */
const WEBP_QUALITY = 80;
const LABELS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export interface CreateStudyOptions {
  dataDir: string;
  run: string;
  /** System ids `<generator>__<condition>`, two or more. */
  systems: readonly string[];
  /** Cases to sample, stratified by `strata`. */
  sample: number;
  /** What the sample is stratified by: the case's `scene` (default) or its PresentBench-style `category`. */
  strata?: 'scene' | 'category';
  seed?: number;
  /** The study folder: must not hold a study yet. */
  out: string;
  soffice?: string;
  env?: Record<string, string | undefined>;
  now?: () => Date;
  /** One line per deck rendered (or read from the run's renders). */
  onProgress?: (line: string) => void;
}

export interface CreatedStudy {
  study: StudyRecord;
  key: StudyKey;
}

type DeckRow = Awaited<ReturnType<typeof discoverDeckRows>>['rows'][number];

interface Eligible {
  case: string;
  stratum: string;
  scene: string;
  audience: string;
  decks: Map<string, DeckRow>;
}

const systemOf = (row: DeckRow) => `${row.system}__${row.condition}`;

/** For each case, an audience every system has a deck for (seeded), with those decks; or why there is none. */
async function eligibleCases(
  dataDir: string,
  rows: readonly DeckRow[],
  systems: readonly string[],
  seed: number,
  strata: 'scene' | 'category',
): Promise<{ eligible: Eligible[]; skipped: StudyKey['skipped'] }> {
  const cases = [...new Set(rows.map((row) => row.caseLabel))].sort(compareCodePoints);
  const eligible: Eligible[] = [];
  const skipped: StudyKey['skipped'] = [];
  for (const caseLabel of cases) {
    let metadata: Awaited<ReturnType<typeof loadSourceCase>>['metadata'];
    try {
      metadata = (await loadSourceCase(dataDir, caseLabel)).metadata;
    } catch (error) {
      if (!isXsbError(error)) throw error;
      skipped.push({ case: caseLabel, reason: `its source case cannot be read: ${error.message}` });
      continue;
    }
    const deckFor = (system: string, audience: string) =>
      rows.find(
        (row) =>
          row.caseLabel === caseLabel &&
          systemOf(row) === system &&
          (row.condition === 'audience_agnostic' || row.deckAudience === audience),
      );
    const audiences = metadata.valid_audiences.filter((audience) =>
      systems.every((system) => deckFor(system, audience)),
    );
    if (audiences.length === 0) {
      const missing = systems.filter((system) => !metadata.valid_audiences.some((a) => deckFor(system, a)));
      skipped.push({
        case: caseLabel,
        reason:
          missing.length > 0
            ? `no deck of ${missing.join(', ')}`
            : 'no audience of the case has a deck of every system',
      });
      continue;
    }
    const audience = seededShuffle(audiences, deriveSeed(seed, `audience|${caseLabel}`))[0]!;
    eligible.push({
      case: caseLabel,
      // A case without a category is a stratum of its own kind, not dropped.
      stratum: strata === 'scene' ? metadata.scene : (metadata.category ?? '(no category)'),
      scene: metadata.scene,
      audience,
      decks: new Map(systems.map((system) => [system, deckFor(system, audience)!])),
    });
  }
  return { eligible, skipped };
}

/**
 * `xsb study create`: a blind ranking study of the chosen systems' decks. A sample of the run's cases stratified
 * by scene (or category), each shown for one audience (seeded among those every system has a deck for); cases where a system
 * has no deck are skipped and listed. Per case the decks get labels A, B, … in a seeded random order. Writes the
 * slide images (`slides/<case n>/<label>/<slide n>.webp`, 960 px, from the run's render store so a deck is
 * rendered once), `study.json` (what annotators see: no system, file or path), `key.json` (label → system) and
 * the study page `index.html`.
 */
export async function createStudy(options: CreateStudyOptions): Promise<CreatedStudy> {
  const systems = [...options.systems];
  if (systems.length < 2) throw new UsageError('a study compares two or more systems');
  if (new Set(systems).size !== systems.length) throw new UsageError('a system is named twice');
  if (systems.length > LABELS.length)
    throw new UsageError(`a study compares at most ${LABELS.length} systems`);
  if (!Number.isInteger(options.sample) || options.sample < 1)
    throw new UsageError(`the sample must be a whole number of cases, 1 or more (got ${options.sample})`);
  if (existsSync(join(options.out, STUDY_FILES.study)))
    throw new UsageError(
      `${options.out} already holds a study: choose a new folder (its key and answers stay)`,
    );
  if (existsSync(options.out) && (await readdir(options.out)).length > 0)
    throw new UsageError(`${options.out} is not empty: a study is created in a new or empty folder`);
  const seed = options.seed ?? 1;
  const layout = new RunLayout(options.dataDir);
  const { rows } = await discoverDeckRows(layout, options.run);
  const known = [...new Set(rows.map(systemOf))].sort(compareCodePoints);
  const unknown = systems.filter((system) => !known.includes(system));
  if (unknown.length > 0)
    throw new UsageError(
      `no decks of ${unknown.map((s) => JSON.stringify(s)).join(', ')} in run "${options.run}" (its systems: ${known.join(', ') || 'none'})`,
    );
  const strata = options.strata ?? 'scene';
  const { eligible, skipped } = await eligibleCases(options.dataDir, rows, systems, seed, strata);
  if (eligible.length === 0)
    throw new UsageError(`no case of run "${options.run}" has a deck of every one of ${systems.join(', ')}`);
  const chosen = sampleCases(eligible, options.sample, seed);
  const store = new SlideRenderStore(layout.slideRendersDir(options.run));
  const study: StudyRecord = {
    study: `study-${deriveSeed(seed, chosen.map((c) => c.case).join('|')).toString(16)}`,
    created_at: (options.now ?? (() => new Date()))().toISOString(),
    task: STUDY_TASK,
    sample: { requested: options.sample, seed, strata },
    cases: [],
  };
  const key: StudyKey = { data_run: options.run, systems, cases: {}, skipped };
  const createdOut = !existsSync(options.out);
  try {
    for (const [index, item] of chosen.entries()) {
      const folder = join('slides', String(index + 1));
      try {
        study.cases.push(
          await studyCase(item, key, folder, store, options, `case ${index + 1}/${chosen.length}`),
        );
      } catch (error) {
        if (!isXsbError(error) || error.kind !== 'input') throw error;
        // A deck that cannot be read or rendered leaves its case out, named; the others are shown.
        delete key.cases[item.case];
        key.skipped.push({ case: item.case, reason: `a deck cannot be shown: ${error.message}` });
        await rm(join(options.out, folder), { recursive: true, force: true });
      }
    }
    if (study.cases.length === 0)
      throw new UsageError(
        `no sampled case could be shown (${key.skipped.map((s) => `${s.case}: ${s.reason}`).join('; ')})`,
      );
    await writeJson(join(options.out, STUDY_FILES.key), studyKeySchema, key);
    await writeJson(join(options.out, STUDY_FILES.study), studyRecordSchema, study);
    await writeFileAtomic(join(options.out, STUDY_FILES.page), renderStudyPage(study));
  } catch (error) {
    // Nothing half-made stays: a study folder holds a whole study or nothing of one.
    await rm(createdOut ? options.out : join(options.out, 'slides'), { recursive: true, force: true });
    throw error;
  }
  return { study, key };
}

/** One case of the study: its decks under labels in a seeded order (the key records which is which). */
async function studyCase(
  item: Eligible,
  key: StudyKey,
  folder: string,
  store: SlideRenderStore,
  options: CreateStudyOptions,
  progress: string,
): Promise<StudyRecord['cases'][number]> {
  const order = seededShuffle([...item.decks.keys()], deriveSeed(options.seed ?? 1, `labels|${item.case}`));
  const labels: Record<string, string> = {};
  const decks = [];
  for (const [position, system] of order.entries()) {
    const label = LABELS[position]!;
    labels[label] = system;
    const slides = await writeSlides(item.decks.get(system)!.deckFile, store, join(folder, label), options);
    options.onProgress?.(`${progress} deck ${label}: ${slides.length} slides`);
    decks.push({ label, slides });
  }
  key.cases[item.case] = labels;
  return { case: item.case, scene: item.scene, audience: item.audience, decks };
}

/** A deck's slides as WebP under the study (relative paths, named by position only). */
async function writeSlides(
  deckFile: string,
  store: SlideRenderStore,
  folder: string,
  options: CreateStudyOptions,
): Promise<string[]> {
  const deck = await readDeck(deckFile);
  const pages = await storedSlidePages(
    deckFile,
    deck.slide_width,
    {
      renderStore: store,
      ...(options.soffice ? { soffice: options.soffice } : {}),
      ...(options.env ? { env: options.env } : {}),
    },
    await hashFile(deckFile),
  );
  const slides: string[] = [];
  for (const [i, page] of pages.entries()) {
    const relative = `${folder.split('\\').join('/')}/${i + 1}.webp`;
    await writeFileAtomic(
      join(options.out, relative),
      await sharp(page).webp({ quality: WEBP_QUALITY }).toBuffer(),
    );
    slides.push(relative);
  }
  return slides;
}
