import { existsSync } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
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
import { anchorDir, anchorSetFile } from './anchor-layout';

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

/**
 * `xsb meta anchors freeze`: picks a small seeded sample of a run's decks whose evaluations are all
 * finished, and stores the decks, the verdicts their judge gave (probe coverage and claim labels) and
 * the hashes of the probe bank and source context, under `<data>/meta/anchors/<id>/`.
 */
export async function freezeAnchors(
  options: FreezeAnchorsOptions,
): Promise<{ set: MetaAnchorSet; file: string }> {
  const layout = new RunLayout(options.dataDir);
  const id = options.id ?? options.run;
  const file = anchorSetFile(options.dataDir, id);
  if (existsSync(file) && !options.force)
    throw new UsageError(`anchor set "${id}" exists (${file}); pass --force to freeze it again`);
  const { rows } = await discoverDeckRows(layout, options.run);
  const { jobs } = await expandEvaluationJobs(layout, rows);
  const finished: Array<{
    row: (typeof rows)[number];
    states: Array<{
      job: (typeof jobs)[number];
      dir: string;
      status: { status: string; judge: string } | null;
    }>;
  }> = [];
  for (const row of rows) {
    const mine = jobs.filter((job) => job.deckFile === row.deckFile);
    const states = await Promise.all(
      mine.map(async (job) => {
        const dir = layout.evaluationDir({
          run: options.run,
          system: job.system,
          condition: job.condition,
          audience: job.audience,
          caseLabel: job.caseLabel,
        });
        const status = existsSync(join(dir, EVALUATION_FILES.status))
          ? await readJson(join(dir, EVALUATION_FILES.status), evalJobStatusSchema)
          : null;
        return { job, dir, status };
      }),
    );
    if (mine.length > 0 && states.every((state) => state.status?.status === 'done'))
      finished.push({ row, states });
  }
  if (finished.length === 0)
    throw new UsageError(
      `run "${options.run}" has no deck whose evaluations are all finished; run \`xsb eval --run ${options.run}\` first`,
    );
  const judges = new Set(finished.flatMap((entry) => entry.states.map((state) => state.status!.judge)));
  if (judges.size > 1)
    throw new UsageError(
      `run "${options.run}" was evaluated by several judges (${[...judges].join(', ')}); anchors need one`,
    );
  const judge = [...judges][0]!;
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
  for (const { row, states } of chosen) {
    const deckFile = join(
      'decks',
      row.system,
      row.condition,
      row.deckAudience,
      row.caseLabel,
      basename(row.deckFile),
    );
    await mkdir(join(dir, deckFile, '..'), { recursive: true });
    await copyFile(row.deckFile, join(dir, deckFile));
    set.decks.push({
      system: row.system,
      condition: row.condition,
      deck_audience: row.deckAudience,
      case_label: row.caseLabel,
      file: deckFile,
      sha256: await hashFile(row.deckFile),
      probes_sha256: await hashFile(layout.probesFile(row.caseLabel)),
      source_sha256: await hashFile(layout.sourceContextFile(row.caseLabel)),
    });
    for (const { job, dir: evaluationDir } of states) {
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
  }
  await writeJson(file, metaAnchorSetSchema, set);
  return { set, file };
}
