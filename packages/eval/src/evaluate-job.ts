import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  audienceWeightSchema,
  correctnessSchema,
  type Deck,
  deckStatsSchema,
  type EvalJobStatus,
  evalJobStatusSchema,
  hashBytes,
  hashCanonicalJson,
  hashFile,
  InputError,
  isXsbError,
  type Probe,
  type ProgressReporter,
  probeSchema,
  type RunLayout,
  type RunManifest,
  readJson,
  readJsonlAll,
  readUtf8Text,
  runManifestSchema,
  type StageEventListener,
  withDirectoryLock,
  writeFileAtomic,
  writeJson,
  XSB_VERSION,
} from '@xsb/core';
import { deckStatsFor, formatDeckText } from '@xsb/decks';
import type { JudgeDescription } from '@xsb/llm';
import {
  EVALUATION_FILES,
  MANIFEST_INPUT_ROLES,
  MANIFEST_MODEL_LABELS,
  systemIdFor,
  writeEvaluationMetrics,
} from '@xsb/metrics';
import { ANSWERABILITY_PROMPT_VERSION, ANSWERABILITY_SYSTEM } from './answerability-prompt';
import { type EvaluationJob, evaluationDirOf } from './discover-evaluation-jobs';
import type { EvalJudge } from './eval-judge';
import type { RepeatResult } from './evaluate-job-repeat';
import { imageInputRefusal, judgeInputModeFor, type SlideImage } from './evaluation-work-list';
import { LEXICAL_ANSWERABILITY_RULES, lexicalRulesKey } from './judge-answerability-lexically';
import type { JudgeInputMode } from './probe-judgment';
import { type ClaimSettings, scoreDeckCorrectness } from './score-deck-correctness';
import { type ScoreReuseKey, scoreProbesInBatches } from './score-probes-in-batches';

/** minisearch's version, recorded in manifests (kept equal to the dependency in package.json). */
export const MINISEARCH_VERSION = '7.2.0';

export const PARTIAL_SCORES_FILE = 'probe_scores.partial.jsonl';

export interface EvaluationSettings {
  /** Probes per answerability call (spec 000 default 12). */
  batchSize: number;
  tauA: number;
  claims: ClaimSettings;
  /** Below this many visible words per slide on average a deck is judged from rendered slides. */
  imageModeWordsPerSlide: number;
  /** Answerability batches in flight at once for one deck. */
  concurrency: number;
  /**
   * `text` (default): the visible text, or the rendered slides for a deck with almost no text (spec
   * 000); `image`: every deck from its rendered slides (a judge that cannot read images fails the job).
   */
  judgeInput?: JudgeInputMode;
  /** Claim-level correctness (default true); false leaves correctness and safe efficiency null. */
  correctness?: boolean;
}

/** Renders a deck's slides to image files in `outDir`, in slide order. */
export type RenderSlides = (
  deckFile: string,
  outDir: string,
) => Promise<Array<{ index: number; file: string; mediaType: 'image/png' | 'image/jpeg' }>>;

export interface EvaluateJobContext {
  layout: RunLayout;
  run: string;
  judge: EvalJudge;
  settings: EvaluationSettings;
  correctnessCacheDir: string;
  force: boolean;
  /** Produces `weights/<audience>.jsonl` for the case when it is missing (stage 3). */
  ensureWeights: (caseLabel: string, audience: string) => Promise<void>;
  readDeck: (file: string) => Promise<Deck>;
  renderSlides?: RenderSlides;
  /** The job's folder; default `RunLayout.evaluationDir` (a variant keeps its own tree). */
  evaluationDir?: (job: EvaluationJob) => string;
  /** The weights file of the job's case and audience; default `RunLayout.weightsFile`. */
  weightsFile?: (caseLabel: string, audience: string) => string;
  /** Write (and clear) the compact `metrics/` copy (default true; false for variant folders). */
  compactMetrics?: boolean;
  /** Score files of other folders whose rows may be reused (see `scoreProbesInBatches`). */
  scoreDonors?: (job: EvaluationJob, evaluationDir: string) => string[];
  /** Ticks once per judge call (answerability batch, claim extraction, verification batch); skips reused ones. */
  progress?: ProgressReporter;
  /** The stage events of the job's work units (`eval.answerability`, `eval.claims`, `eval.verification`). */
  onEvent?: StageEventListener;
  /**
   * The model labels of the replay or record stores among these judge ids (recorded in the manifest
   * as `judge_model_labels`, so reports can say which model a replay store stands for).
   */
  modelLabels?: (judgeIds: readonly string[]) => Record<string, string>;
}

export interface JobResult {
  job: EvaluationJob;
  evaluationDir: string;
  outcome: 'evaluated' | 'reused' | 'failed';
  error?: string;
  judgedBatches: number;
  reusedBatches: number;
  correctnessFromCache: boolean;
  /** Test–retest repeats 1 … N − 1 of this job (`runEvaluation` with `repeats`), in order. */
  repeats?: RepeatResult[];
}

function sameInputs(
  manifest: RunManifest,
  wanted: Pick<RunManifest, 'inputs' | 'judges' | 'settings'>,
): boolean {
  return (
    hashCanonicalJson(manifest.inputs) === hashCanonicalJson(wanted.inputs) &&
    hashCanonicalJson(manifest.judges) === hashCanonicalJson(wanted.judges) &&
    hashCanonicalJson(manifest.settings) === hashCanonicalJson(wanted.settings)
  );
}

/** What a job reads and the manifest its inputs call for (the reuse check compares it with the stored one). */
export interface JobInputs {
  /** The source context, read as strict UTF-8. */
  sourceText: string;
  deckSha256: string;
  probesSha256: string;
  sourceSha256: string;
  wanted: Pick<RunManifest, 'stage' | 'xsb_version' | 'inputs' | 'judges' | 'settings' | 'versions'>;
}

/**
 * Reads a job's inputs (source context, hashes of deck, bank and weights) and renders the manifest
 * they call for. No source context: an InputError naming the file.
 */
export async function readJobInputs(
  job: EvaluationJob,
  context: {
    layout: RunLayout;
    judgeId: string;
    settings: EvaluationSettings;
    evaluationDir: string;
    weightsFile: string;
  },
): Promise<JobInputs> {
  const { layout, settings, evaluationDir, weightsFile } = context;
  const judgeInput = settings.judgeInput ?? 'text';
  const correctnessOn = settings.correctness !== false;
  const dataRelative = (file: string) => relative(layout.dataDir, file);
  const probesFile = layout.probesFile(job.caseLabel);
  const sourceFile = layout.sourceContextFile(job.caseLabel);
  if (!existsSync(sourceFile)) {
    throw new InputError('no source context: prepare the source of this case first (stage 1)', {
      file: sourceFile,
      code: 'missing_file',
      remedy: { step: 'sources', caseLabel: job.caseLabel, dataDir: layout.dataDir },
    });
  }
  // Strict UTF-8: a damaged context must fail the job, not reach the judge with U+FFFD in it.
  const sourceText = await readUtf8Text(sourceFile);
  const deckSha256 = await hashFile(job.deckFile);
  const probesSha256 = await hashFile(probesFile);
  const sourceSha256 = hashBytes(sourceText);
  const wanted = {
    stage: 'evaluate',
    xsb_version: XSB_VERSION,
    inputs: [
      { role: MANIFEST_INPUT_ROLES.deck, path: dataRelative(job.deckFile), sha256: deckSha256 },
      { role: MANIFEST_INPUT_ROLES.source, path: dataRelative(sourceFile), sha256: sourceSha256 },
      { role: MANIFEST_INPUT_ROLES.probes, path: dataRelative(probesFile), sha256: probesSha256 },
      {
        role: MANIFEST_INPUT_ROLES.weights,
        path: dataRelative(weightsFile),
        sha256: await hashFile(weightsFile),
      },
    ],
    judges: {
      answerability: context.judgeId,
      ...(correctnessOn ? { correctness: context.judgeId } : {}),
    } as Record<string, string>,
    settings: {
      data_dir: relative(evaluationDir, layout.dataDir),
      job: {
        system: job.system,
        condition: job.condition,
        audience: job.audience,
        deck_audience: job.deckAudience,
        case_label: job.caseLabel,
      },
      batch_size: settings.batchSize,
      claims: settings.claims,
      image_mode_words_per_slide: settings.imageModeWordsPerSlide,
      // Recorded only when not the default, so manifests of default evaluations stay as they were.
      ...(judgeInput === 'image' ? { judge_input: 'image' } : {}),
      ...(correctnessOn ? {} : { correctness: 'off' }),
      answerability_prompt:
        context.judgeId === 'lexical'
          ? `lexical:${LEXICAL_ANSWERABILITY_RULES}`
          : `${ANSWERABILITY_PROMPT_VERSION}:${hashBytes(ANSWERABILITY_SYSTEM).slice(0, 16)}`,
    },
    versions: { xsb: XSB_VERSION, minisearch: MINISEARCH_VERSION },
  };
  return { sourceText, deckSha256, probesSha256, sourceSha256, wanted };
}

/** Whether a job folder holds a finished evaluation (`status.json` done) of exactly these inputs. */
export async function isJobCurrent(evaluationDir: string, wanted: JobInputs['wanted']): Promise<boolean> {
  const manifestFile = join(evaluationDir, EVALUATION_FILES.manifest);
  const statusFile = join(evaluationDir, EVALUATION_FILES.status);
  if (!existsSync(manifestFile) || !existsSync(statusFile)) return false;
  const previous = await readJson(statusFile, evalJobStatusSchema).catch(() => null);
  const manifest = await readJson(manifestFile, runManifestSchema).catch(() => null);
  return previous?.status === 'done' && manifest !== null && sameInputs(manifest, wanted);
}

/** A job's folder, judge and settings, with the paths its steps write. */
interface JobFrame {
  job: EvaluationJob;
  context: EvaluateJobContext;
  evaluationDir: string;
  name: string;
  weightsFile: string;
  log: string[];
}

/** The status record of a job (`status.json`). */
function jobStatus(frame: JobFrame, outcome: 'done' | 'failed', mode: JudgeInputMode | null, error?: string) {
  const { job } = frame;
  const status: EvalJobStatus = {
    status: outcome,
    system: job.system,
    condition: job.condition,
    audience: job.audience,
    case_label: job.caseLabel,
    judge: frame.context.judge.id,
    judge_input_mode: mode,
    ...(error ? { error } : {}),
  };
  return status;
}

/**
 * From here the folder is being rewritten: without a status it is not "finished", and without
 * metrics (here and the compact copy) stage 7 cannot aggregate a stale result of other inputs if
 * this run fails or is killed; the next run redoes the job.
 */
async function clearFinishedMarks(frame: JobFrame): Promise<void> {
  const { job, context, evaluationDir } = frame;
  await rm(join(evaluationDir, EVALUATION_FILES.status), { force: true });
  await rm(join(evaluationDir, EVALUATION_FILES.metrics), { force: true });
  if (context.compactMetrics !== false)
    await rm(
      context.layout.compactMetricsFile(
        context.run,
        systemIdFor(job.system, job.condition),
        job.audience,
        job.caseLabel,
      ),
      { force: true },
    );
}

/** Reads the deck and writes what the judges read: the visible text and `deck_stats.json`. */
async function writeDeckText(frame: JobFrame): Promise<{ deck: Deck; deckText: string }> {
  const { job, context, evaluationDir } = frame;
  const deck = await context.readDeck(job.deckFile);
  const deckText = formatDeckText(deck);
  await writeFileAtomic(join(evaluationDir, EVALUATION_FILES.visibleText), deckText);
  const stats = deckStatsFor(
    { ...deck, deck_path: relative(context.layout.dataDir, job.deckFile) },
    EVALUATION_FILES.visibleText,
  );
  await writeJson(join(evaluationDir, EVALUATION_FILES.deckStats), deckStatsSchema, stats);
  return { deck, deckText };
}

/** The input mode (`judgeInputModeFor`) and, in image mode, the rendered slides; a sparse text-mode deck is logged. */
async function judgeInputOf(
  frame: JobFrame,
  deck: Deck,
): Promise<{ mode: JudgeInputMode; slideImages: SlideImage[] }> {
  const { job, context, evaluationDir } = frame;
  const { judge, settings } = context;
  const { mode, sparse } = judgeInputModeFor(deck, settings, judge);
  if (mode === 'text') {
    if (sparse)
      frame.log.push(
        `warning: ${deck.visible_word_count} visible words on ${deck.slide_count} slides; the ${judge.id} judge cannot read rendered slides, so it judged the (sparse) text`,
      );
    return { mode, slideImages: [] };
  }
  if (!context.renderSlides)
    throw new InputError(
      `the deck has ${deck.visible_word_count} visible words on ${deck.slide_count} slides, so it must be judged from rendered slides, but no slide renderer is available`,
      { file: job.deckFile },
    );
  const rendered = await context.renderSlides(
    job.deckFile,
    join(evaluationDir, EVALUATION_FILES.renderedDir),
  );
  const slideImages = await Promise.all(
    rendered.map(async (image) => ({
      index: image.index,
      mediaType: image.mediaType,
      data: await readFile(image.file),
    })),
  );
  return { mode, slideImages };
}

/** The reuse key of a job's score rows (`ScoreReuseKey`); its fields in the order rows record them. */
export function scoreReuseKeyOf(
  judge: Pick<JudgeDescription, 'id'>,
  mode: JudgeInputMode,
  hashes: { deckSha256: string; probesSha256: string },
  batchSize: number,
  repeat?: number,
): ScoreReuseKey {
  return {
    judge: judge.id,
    judge_input_mode: mode,
    deck_sha256: hashes.deckSha256,
    probes_sha256: hashes.probesSha256,
    batch_size: batchSize,
    ...(repeat === undefined ? {} : { repeat }),
    ...lexicalRulesKey(judge.id),
  };
}

/** Writes the manifest (with the replay stores' model labels), the metrics and the log of a judged job. */
async function writeJobRecords(frame: JobFrame, wanted: JobInputs['wanted'], probes: readonly Probe[]) {
  const { context, evaluationDir } = frame;
  const weightJudges = (await readJsonlAll(frame.weightsFile, audienceWeightSchema)).map(
    (row) => row.metadata.judge,
  );
  const labels = context.modelLabels?.(
    [context.judge.id, ...probes.map((probe) => probe.metadata.generator), ...weightJudges].filter(
      (id): id is string => typeof id === 'string',
    ),
  );
  await writeJson(join(evaluationDir, EVALUATION_FILES.manifest), runManifestSchema, {
    ...wanted,
    created_at: new Date().toISOString(),
    ...(labels && Object.keys(labels).length > 0 ? { [MANIFEST_MODEL_LABELS]: labels } : {}),
  });
  await writeEvaluationMetrics(context.layout, context.run, evaluationDir, {
    tauA: context.settings.tauA,
    compactCopy: context.compactMetrics !== false,
  });
}

/** Correctness of the job's deck (cached across audiences), or its file removed when the settings score none. */
async function writeJobCorrectness(
  frame: JobFrame,
  input: { deck: Deck; deckText: string; inputs: JobInputs },
  result: JobResult,
): Promise<string> {
  const { context, evaluationDir } = frame;
  const correctnessFile = join(evaluationDir, EVALUATION_FILES.correctness);
  if (context.settings.correctness === false) {
    await rm(correctnessFile, { force: true });
    return 'correctness off (these settings score none)';
  }
  const correctness = await scoreDeckCorrectness({
    deck: input.deck,
    deckText: input.deckText,
    deckSha256: input.inputs.deckSha256,
    sourceText: input.inputs.sourceText,
    sourceSha256: input.inputs.sourceSha256,
    judge: context.judge,
    settings: context.settings.claims,
    cacheDir: context.correctnessCacheDir,
    force: context.force,
    log: (line) => frame.log.push(line),
    job: frame.name,
    ...progressOf(context, `${frame.name}: claims`),
  });
  result.correctnessFromCache = correctness.fromCache;
  await writeJson(correctnessFile, correctnessSchema, correctness.record);
  return `correctness ${correctness.fromCache ? 'from cache' : 'computed'} (${correctness.record.claim_count} claims)`;
}

function progressOf(context: EvaluateJobContext, note: string) {
  return {
    ...(context.progress ? { progress: context.progress, progressNote: note } : {}),
    ...(context.onEvent ? { onEvent: context.onEvent } : {}),
  };
}

/** Judges a job whose inputs are not current: deck text, input mode, answerability, correctness, records. */
async function judgeJob(frame: JobFrame, inputs: JobInputs, result: JobResult): Promise<JudgeInputMode> {
  const { job, context, evaluationDir } = frame;
  const { judge, settings, layout } = context;
  await clearFinishedMarks(frame);
  const { deck, deckText } = await writeDeckText(frame);
  const { mode, slideImages } = await judgeInputOf(frame, deck);
  const probes = await readJsonlAll(layout.probesFile(job.caseLabel), probeSchema);
  const answerability = await scoreProbesInBatches({
    judge,
    request: { mode, deck, deckText, slideImages, sourceContext: inputs.sourceText },
    probes,
    reuseKey: scoreReuseKeyOf(judge, mode, inputs, settings.batchSize),
    concurrency: settings.concurrency,
    finalFile: join(evaluationDir, EVALUATION_FILES.probeScores),
    partialFile: join(evaluationDir, PARTIAL_SCORES_FILE),
    force: context.force,
    donorFiles: (context.scoreDonors?.(job, evaluationDir) ?? [])
      .filter((dir) => dir !== evaluationDir)
      .map((dir) => join(dir, EVALUATION_FILES.probeScores)),
    job: frame.name,
    reads: [job.deckFile, layout.probesFile(job.caseLabel), layout.sourceContextFile(job.caseLabel)],
    ...progressOf(context, `${frame.name}: answerability`),
  });
  result.judgedBatches = answerability.judgedBatches;
  result.reusedBatches = answerability.reusedBatches;
  frame.log.push(...answerability.notes);
  const correctnessNote = await writeJobCorrectness(frame, { deck, deckText, inputs }, result);
  await writeJobRecords(frame, inputs.wanted, probes);
  frame.log.push(
    `judge ${judge.id} (${mode} mode): ${result.judgedBatches} batch(es) judged, ${result.reusedBatches} reused; ${correctnessNote}`,
  );
  return mode;
}

/** The job under its folder's lock: weights, the refusal and reuse checks, then the judging. */
async function evaluateLocked(frame: JobFrame, result: JobResult): Promise<JobResult> {
  const { job, context, evaluationDir } = frame;
  const { layout, judge, settings } = context;
  await context.ensureWeights(job.caseLabel, job.audience);
  const refusal = imageInputRefusal(settings.judgeInput, judge);
  if (refusal !== null)
    throw new InputError(refusal, { file: job.deckFile, code: 'judge_cannot_read_images' });
  const inputs = await readJobInputs(job, {
    layout,
    judgeId: judge.id,
    settings,
    evaluationDir,
    weightsFile: frame.weightsFile,
  });
  if (!context.force && (await isJobCurrent(evaluationDir, inputs.wanted))) {
    await writeEvaluationMetrics(layout, context.run, evaluationDir, {
      tauA: settings.tauA,
      compactCopy: context.compactMetrics !== false,
    });
    return { ...result, outcome: 'reused' };
  }
  const mode = await judgeJob(frame, inputs, result);
  await writeFileAtomic(join(evaluationDir, EVALUATION_FILES.log), `${frame.log.join('\n')}\n`);
  await writeJson(
    join(evaluationDir, EVALUATION_FILES.status),
    evalJobStatusSchema,
    jobStatus(frame, 'done', mode),
  );
  return result;
}

/** Stage 5 for one (deck, audience) job under the evaluation folder's lock (files and reuse: README). */
export async function evaluateJob(job: EvaluationJob, context: EvaluateJobContext): Promise<JobResult> {
  const { layout, run } = context;
  const evaluationDir = context.evaluationDir?.(job) ?? evaluationDirOf(layout, run, job);
  const frame: JobFrame = {
    job,
    context,
    evaluationDir,
    name: `${job.system}/${job.condition}/${job.audience}/${job.caseLabel}`,
    weightsFile:
      context.weightsFile?.(job.caseLabel, job.audience) ?? layout.weightsFile(job.caseLabel, job.audience),
    log: [],
  };
  const result: JobResult = {
    job,
    evaluationDir,
    outcome: 'evaluated',
    judgedBatches: 0,
    reusedBatches: 0,
    correctnessFromCache: false,
  };
  try {
    return await withDirectoryLock(evaluationDir, () => evaluateLocked(frame, result));
  } catch (error) {
    if (!isXsbError(error)) throw error;
    frame.log.push(`failed: ${error.message}`);
    await writeFileAtomic(join(evaluationDir, EVALUATION_FILES.log), `${frame.log.join('\n')}\n`);
    await writeJson(
      join(evaluationDir, EVALUATION_FILES.status),
      evalJobStatusSchema,
      jobStatus(frame, 'failed', null, error.message),
    );
    return { ...result, outcome: 'failed', error: error.message };
  }
}
