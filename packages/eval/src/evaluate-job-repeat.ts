import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  correctnessSchema,
  evalJobStatusSchema,
  hashBytes,
  hashFile,
  InputError,
  isXsbError,
  probeSchema,
  probeScoreSchema,
  readJson,
  readJsonlAll,
  readUtf8Text,
  withDirectoryLock,
  writeFileAtomic,
  writeJson,
} from '@xsb/core';
import { formatDeckText } from '@xsb/decks';
import { EVALUATION_FILES } from '@xsb/metrics';
import { type EvaluationJob, evaluationDirOf } from './discover-evaluation-jobs';
import type { EvalJudge } from './eval-judge';
import { type EvaluateJobContext, scoreReuseKeyOf } from './evaluate-job';
import type { JudgeInputMode } from './probe-judgment';
import { scoreDeckCorrectness } from './score-deck-correctness';
import { scoreProbesInBatches } from './score-probes-in-batches';

/**
 * The files of test–retest repeat r ≥ 1 in a job's evaluation folder, beside the ordinary ones
 * (which stay those of repeat 0, so every metric is unchanged).
 */
export function repeatFiles(repeat: number): { probeScores: string; correctness: string; log: string } {
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new RangeError(`a repeat's files exist from repeat 1 on, got ${repeat}`);
  return {
    probeScores: `probe_scores.repeat-${repeat}.jsonl`,
    correctness: `correctness.repeat-${repeat}.json`,
    log: `evaluate.repeat-${repeat}.log`,
  };
}

export interface RepeatResult {
  repeat: number;
  /** `reused`: every verdict of this repeat was already on disk; `evaluated`: some were asked now. */
  outcome: 'evaluated' | 'reused' | 'failed';
  error?: string;
  judgedBatches: number;
  correctnessFromCache: boolean;
}

/** The slides repeat 0 rendered (image mode), read back in slide order; none → render again. */
async function slideImagesOf(job: EvaluationJob, evaluationDir: string, context: EvaluateJobContext) {
  const dir = join(evaluationDir, EVALUATION_FILES.renderedDir);
  const names = existsSync(dir)
    ? (await readdir(dir)).filter((name) => /\.(png|jpe?g)$/i.test(name)).sort()
    : [];
  const files =
    names.length > 0
      ? names.map((name, index) => ({
          index: index + 1,
          file: join(dir, name),
          mediaType: /\.png$/i.test(name) ? ('image/png' as const) : ('image/jpeg' as const),
        }))
      : context.renderSlides
        ? await context.renderSlides(job.deckFile, dir)
        : [];
  if (files.length === 0)
    throw new InputError('repeat 0 judged rendered slides, but none are left and no renderer is available', {
      file: job.deckFile,
    });
  return Promise.all(
    files.map(async (image) => ({
      index: image.index,
      mediaType: image.mediaType,
      data: await readFile(image.file),
    })),
  );
}

/** The judge of repeat `repeat`, once repeat 0 of the same judge is done (else InputError). */
async function repeatJudge(
  context: EvaluateJobContext,
  evaluationDir: string,
  repeat: number,
): Promise<EvalJudge> {
  const judge: EvalJudge | undefined = context.judge.withRepeat?.(repeat);
  if (!judge) throw new InputError(`judge ${context.judge.id} cannot be asked again (no repeat support)`);
  const status = join(evaluationDir, EVALUATION_FILES.status);
  const first = existsSync(status) ? await readJson(status, evalJobStatusSchema) : null;
  if (first?.status !== 'done')
    throw new InputError('the ordinary evaluation (repeat 0) of this job is not done', { file: status });
  if (first.judge !== context.judge.id)
    throw new InputError(`repeat 0 was judged by ${first.judge}, not ${context.judge.id}`, { file: status });
  return judge;
}

/** What repeat 0 judged: its input mode (from its score rows), the deck, its text and slides, the source. */
async function repeatInputs(job: EvaluationJob, context: EvaluateJobContext, evaluationDir: string) {
  const firstScores = await readJsonlAll(join(evaluationDir, EVALUATION_FILES.probeScores), probeScoreSchema);
  const mode = (firstScores[0]?.metadata.judge_input_mode ?? 'text') as JudgeInputMode;
  const deck = await context.readDeck(job.deckFile);
  return {
    mode,
    deck,
    deckText: formatDeckText(deck),
    slideImages: mode === 'image' ? await slideImagesOf(job, evaluationDir, context) : [],
    sourceText: await readUtf8Text(context.layout.sourceContextFile(job.caseLabel)),
    deckSha256: await hashFile(job.deckFile),
  };
}

/** Repeat `repeat`'s answerability and correctness into its own files; its log lines go to `log`. */
async function judgeRepeat(
  job: EvaluationJob,
  context: EvaluateJobContext,
  frame: {
    evaluationDir: string;
    repeat: number;
    judge: EvalJudge;
    donors: readonly string[];
    log: string[];
  },
): Promise<RepeatResult> {
  const { evaluationDir, repeat, judge, log } = frame;
  const files = repeatFiles(repeat);
  const input = await repeatInputs(job, context, evaluationDir);
  const probesFile = context.layout.probesFile(job.caseLabel);
  const hashes = { deckSha256: input.deckSha256, probesSha256: await hashFile(probesFile) };
  const answerability = await scoreProbesInBatches({
    judge,
    request: { ...input, sourceContext: input.sourceText },
    probes: await readJsonlAll(probesFile, probeSchema),
    reuseKey: scoreReuseKeyOf(judge, input.mode, hashes, context.settings.batchSize, repeat),
    concurrency: context.settings.concurrency,
    finalFile: join(evaluationDir, files.probeScores),
    partialFile: join(evaluationDir, `probe_scores.repeat-${repeat}.partial.jsonl`),
    force: context.force,
    donorFiles: frame.donors
      .filter((dir) => dir !== evaluationDir)
      .map((dir) => join(dir, files.probeScores)),
    ...(context.progress
      ? { progress: context.progress, progressNote: `repeat ${repeat}: answerability` }
      : {}),
  });
  log.push(...answerability.notes);
  const correctnessOn = context.settings.correctness !== false;
  let fromCache = true;
  if (correctnessOn) {
    const correctness = await scoreDeckCorrectness({
      ...input,
      sourceSha256: hashBytes(input.sourceText),
      judge,
      settings: context.settings.claims,
      cacheDir: context.correctnessCacheDir,
      force: context.force,
      repeat,
      log: (line) => log.push(line),
      ...(context.progress ? { progress: context.progress, progressNote: `repeat ${repeat}: claims` } : {}),
    });
    fromCache = correctness.fromCache;
    await writeJson(join(evaluationDir, files.correctness), correctnessSchema, correctness.record);
  }
  log.push(
    `repeat ${repeat} of judge ${judge.id} (${input.mode} mode): ${answerability.judgedBatches} batch(es) judged, ${answerability.reusedBatches} reused`,
  );
  return {
    repeat,
    outcome: answerability.judgedBatches === 0 && fromCache ? 'reused' : 'evaluated',
    judgedBatches: answerability.judgedBatches,
    correctnessFromCache: fromCache && correctnessOn,
  };
}

/**
 * Test–retest repeat `repeat` (≥ 1) of a job whose ordinary evaluation (repeat 0) is done: the same
 * answerability batches and claim steps asked again of `judge.withRepeat(repeat)` — the same prompts,
 * each repeat its own response-cache and correctness-cache entry — written to the repeat's own files.
 * The ordinary artifacts are never touched. `donors` are other folders of the same deck (its other
 * audiences) whose rows of the same repeat are reused, as the ordinary ask reuses across audiences.
 */
export async function evaluateJobRepeat(
  job: EvaluationJob,
  context: EvaluateJobContext,
  repeat: number,
  donors: readonly string[] = [],
): Promise<RepeatResult> {
  const files = repeatFiles(repeat);
  const evaluationDir = context.evaluationDir?.(job) ?? evaluationDirOf(context.layout, context.run, job);
  const log: string[] = [];
  try {
    return await withDirectoryLock(evaluationDir, async () => {
      const judge = await repeatJudge(context, evaluationDir, repeat);
      const result = await judgeRepeat(job, context, { evaluationDir, repeat, judge, donors, log });
      await writeFileAtomic(join(evaluationDir, files.log), `${log.join('\n')}\n`);
      return result;
    });
  } catch (error) {
    if (!isXsbError(error)) throw error;
    log.push(`failed: ${error.message}`);
    await writeFileAtomic(join(evaluationDir, files.log), `${log.join('\n')}\n`).catch(() => undefined);
    return { repeat, outcome: 'failed', error: error.message, judgedBatches: 0, correctnessFromCache: false };
  }
}
