import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { anchorDir, anchorSetFile } from '@xsb/bench';
import {
  correctnessSchema,
  createSeededRandom,
  evalJobStatusSchema,
  hashFile,
  type MetaAnchorSet,
  metaAnchorSetSchema,
  probeScoreSchema,
  RunLayout,
  readJson,
  readJsonlAll,
  UsageError,
  writeJson,
} from '@xsb/core';
import { discoverDeckRows, expandEvaluationJobs } from '@xsb/eval';
import { EVALUATION_FILES } from '@xsb/metrics';
import { sampleIndices } from '../perturb/text-patterns';
import { loadCaseInstances } from '../sensitivity/score-decks';
import { freezeDeckRubric } from './anchor-rubric';

export interface FreezeAnchorsOptions {
  dataDir: string;
  run: string;
  /** Anchor set id (default: the run name). */
  id?: string;
  /** Decks in the set (default 4, at most all decks of the run). */
  size?: number;
  seed?: number;
  force?: boolean;
  now?: () => Date;
}

export const DEFAULT_ANCHOR_SIZE = 4;

type DeckRow = Awaited<ReturnType<typeof discoverDeckRows>>['rows'][number];
type JobState = {
  job: Awaited<ReturnType<typeof expandEvaluationJobs>>['jobs'][number];
  dir: string;
  status: { status: string; judge: string } | null;
};
type FinishedDeck = { row: DeckRow; states: JobState[] };

/** The decks of a run whose evaluation jobs are all done, each with its jobs' folders and statuses. */
async function finishedDecks(layout: RunLayout, run: string): Promise<FinishedDeck[]> {
  const { rows } = await discoverDeckRows(layout, run);
  const { jobs } = await expandEvaluationJobs(layout, rows);
  const finished: FinishedDeck[] = [];
  for (const row of rows) {
    const mine = jobs.filter((job) => job.deckFile === row.deckFile);
    const states = await Promise.all(
      mine.map(async (job) => {
        const dir = layout.evaluationDir({ ...job, run });
        const statusFile = join(dir, EVALUATION_FILES.status);
        const status = existsSync(statusFile) ? await readJson(statusFile, evalJobStatusSchema) : null;
        return { job, dir, status };
      }),
    );
    if (mine.length > 0 && states.every((state) => state.status?.status === 'done'))
      finished.push({ row, states });
  }
  if (finished.length === 0)
    throw new UsageError(
      `run "${run}" has no deck whose evaluations are all finished; evaluate its decks first`,
      { remedy: { step: 'eval', run } },
    );
  return finished;
}

/** The one judge of the finished decks (anchors compare one judge with itself later). */
function singleJudge(finished: readonly FinishedDeck[], run: string): string {
  const judges = new Set(finished.flatMap((entry) => entry.states.map((state) => state.status!.judge)));
  if (judges.size > 1)
    throw new UsageError(
      `run "${run}" was evaluated by several judges (${[...judges].join(', ')}); anchors need one`,
    );
  return [...judges][0]!;
}

/** Copies one deck (and its rubric evaluation when its case has an instance) into the set; returns its rubric items. */
async function freezeDeck(
  set: MetaAnchorSet,
  dir: string,
  layout: RunLayout,
  row: DeckRow,
  instance: Parameters<typeof freezeDeckRubric>[0]['instance'],
): Promise<number> {
  const parts = [row.system, row.condition, row.deckAudience, row.caseLabel] as const;
  const deckFile = join('decks', ...parts, basename(row.deckFile));
  await mkdir(join(dir, deckFile, '..'), { recursive: true });
  await copyFile(row.deckFile, join(dir, deckFile));
  const rubric = await freezeDeckRubric({
    deckFile: row.deckFile,
    judge: set.judge,
    instance,
    anchorDir: dir,
    base: join('rubric', ...parts),
  });
  set.decks.push({
    system: row.system,
    condition: row.condition,
    deck_audience: row.deckAudience,
    case_label: row.caseLabel,
    file: deckFile,
    sha256: await hashFile(row.deckFile),
    probes_sha256: await hashFile(layout.probesFile(row.caseLabel)),
    source_sha256: await hashFile(layout.sourceContextFile(row.caseLabel)),
    ...(rubric ? { rubric } : {}),
  });
  return rubric?.items ?? 0;
}

async function freezeVerdicts(
  set: MetaAnchorSet,
  dir: string,
  { job, dir: evaluationDir }: JobState,
): Promise<void> {
  const base = join('verdicts', job.system, job.condition, job.audience, job.caseLabel);
  await mkdir(join(dir, base), { recursive: true });
  const scores = join(evaluationDir, EVALUATION_FILES.probeScores);
  await copyFile(scores, join(dir, base, EVALUATION_FILES.probeScores));
  set.item_count += (await readJsonlAll(scores, probeScoreSchema)).length;
  const correctness = join(evaluationDir, EVALUATION_FILES.correctness);
  const hasCorrectness = existsSync(correctness);
  if (hasCorrectness) {
    await copyFile(correctness, join(dir, base, EVALUATION_FILES.correctness));
    set.item_count += (await readJson(correctness, correctnessSchema)).claims.length;
  }
  set.verdicts.push({
    system: job.system,
    condition: job.condition,
    audience: job.audience,
    case_label: job.caseLabel,
    probe_scores: join(base, EVALUATION_FILES.probeScores),
    correctness: hasCorrectness ? join(base, EVALUATION_FILES.correctness) : null,
  });
}

/**
 * `xsb meta anchors freeze`: stores a seeded sample of a run's finished decks, their judge's verdicts and
 * the hashes of their inputs under `<data>/meta/anchors/<id>/`.
 */
export async function freezeAnchors(
  options: FreezeAnchorsOptions,
): Promise<{ set: MetaAnchorSet; file: string }> {
  const layout = new RunLayout(options.dataDir);
  const id = options.id ?? options.run;
  const file = anchorSetFile(options.dataDir, id);
  if (existsSync(file) && !options.force)
    throw new UsageError(`anchor set "${id}" exists (${file}); forcing freezes it again`, {
      remedy: { step: 'anchor-set', run: options.run, dataDir: options.dataDir, force: true },
    });
  const finished = await finishedDecks(layout, options.run);
  const judge = singleJudge(finished, options.run);
  const size = Math.min(options.size ?? DEFAULT_ANCHOR_SIZE, finished.length);
  const seed = options.seed ?? 12;
  const chosen = sampleIndices(finished.length, size, createSeededRandom(seed)).map(
    (index) => finished[index]!,
  );
  const dir = anchorDir(options.dataDir, id);
  await rm(dir, { recursive: true, force: true });
  const set: MetaAnchorSet = {
    id,
    judge,
    run: options.run,
    seed,
    frozen_at: (options.now?.() ?? new Date()).toISOString(),
    decks: [],
    verdicts: [],
    item_count: 0,
  };
  const instances = await loadCaseInstances(options.dataDir, []);
  let rubricItems = 0;
  for (const { row, states } of chosen) {
    rubricItems += await freezeDeck(set, dir, layout, row, instances.get(row.caseLabel));
    for (const state of states) await freezeVerdicts(set, dir, state);
  }
  set.item_count += rubricItems;
  set.rubric_item_count = rubricItems;
  await writeJson(file, metaAnchorSetSchema, set);
  return { set, file };
}
