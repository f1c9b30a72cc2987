import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Deck,
  hashBytes,
  hashFile,
  isXsbError,
  type Probe,
  probeSchema,
  RunLayout,
  readJsonlAll,
  readUtf8Text,
  type WorkUnit,
} from '@xsb/core';
import { formatDeckText, readDeck as readDeckFile } from '@xsb/decks';
import {
  claimExtractionUnit,
  correctnessCacheKey,
  EVAL_STAGES,
  type EvaluationJob,
  evaluationDirOf,
  evaluationSettingsFor,
  extractClaimsLexically,
  imageInputRefusal,
  isJobCurrent,
  type JobFilters,
  type JudgeInputMode,
  judgeInputModeFor,
  PARTIAL_SCORES_FILE,
  readAnswerabilityWork,
  readJobInputs,
  scoreReuseKeyOf,
  selectEvaluationJobs,
  verificationItems,
  verificationUnits,
} from '@xsb/eval';
import { type CompletionRequest, describeJudge, type JudgeDescription } from '@xsb/llm';
import { EVALUATION_FILES, evaluationsRootFor } from '@xsb/metrics';
import { findWeightsBankMismatch, WEIGHT_DEFAULTS, weightsFileForK } from '@xsb/weights';
import { lexicalBankCheck } from './bank-judge';
import type { CostPlanBuilder } from './cost-plan-builder';
import { planWeights, priceUnit } from './plan-weights';

/** The options of `runEvaluation` that decide which calls it makes. */
export interface PlanEvalOptions {
  dataDir: string;
  run: string;
  batchSize?: number;
  claims?: Parameters<typeof evaluationSettingsFor>[0]['claims'];
  imageModeWordsPerSlide?: number;
  correctnessCacheDir?: string;
  force?: boolean;
  filters?: JobFilters;
  /** Only the jobs of cases this keeps (e.g. a `--shard`). */
  include?: (caseLabel: string) => boolean;
  variant?: string;
  weightsK?: number;
  judgeInput?: JudgeInputMode;
  correctness?: boolean;
  readDeck?: (file: string) => Promise<Deck>;
  /**
   * The jobs to plan instead of those discovered on disk (a pipeline plan whose decks do not exist
   * yet), each with its deck and the assumption behind it.
   */
  assumedJobs?: ReadonlyArray<{ job: EvaluationJob; deck: Deck; assumption?: string }>;
  /** The caller planned stage 3 for every pair already (a pipeline plan): missing weights add no call here. */
  weightsPlanned?: boolean;
  /** A stand-in probe bank for cases whose bank is made (anew) earlier in the same run. */
  assumedBank?: (caseLabel: string) => { probes: Probe[]; assumption: string } | undefined;
  /** A stand-in source context for cases whose context is made earlier in the same run. */
  assumedSource?: (caseLabel: string) => string | undefined;
  /**
   * What the judge is and can do (default: `describeJudge` of the builder's judge spec); a model
   * that reads no images is planned in text mode, as the run judges it.
   */
  judge?: JudgeDescription;
}

const IMAGE_PLACEHOLDER = new Uint8Array(0);

type PlanSettings = ReturnType<typeof evaluationSettingsFor>;

/** What every job of a plan shares: the run's layout and settings, the judge, and what was planned so far. */
interface EvalPlanFrame {
  builder: CostPlanBuilder;
  options: PlanEvalOptions;
  layout: RunLayout;
  settings: PlanSettings;
  judge: JudgeDescription;
  weightsK: number;
  force: boolean;
  dirOf: (job: EvaluationJob) => string;
  checkBank: ReturnType<typeof lexicalBankCheck>;
  weighted: Set<string>;
  unweightable: Set<string>;
  /** Correctness keys planned by an earlier job (a deck's other audiences reuse its result). */
  correctnessKeys: Set<string>;
  fail: (job: EvaluationJob, why: string) => void;
}

/** Non-empty lines of a JSONL file (the probes a finished job judged). */
async function countLines(file: string): Promise<number> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
}

/**
 * Prices work units as the run decides them: a call's requests (in sending order), a reused unit as
 * reused, and the offline judge's rule as the zero-token ledger line each of its steps writes.
 */
async function priceUnits(builder: CostPlanBuilder, units: readonly WorkUnit<CompletionRequest>[]) {
  for (const unit of units)
    if (unit.decision.kind === 'rule')
      await builder.add({ stage: unit.stage, request: { messages: [] }, outputTokens: 0 });
    else await priceUnit(builder, unit, 1);
}

/**
 * Stage 5's calls for a run, on the work list `runEvaluation` runs: the jobs the filters select; for
 * each, missing weights (stage 3, planned once per pair), the reuse check (a finished job of the same
 * inputs makes no call), the input mode (`judgeInputModeFor`, from the judge's capabilities), the
 * fixed answerability batches (`readAnswerabilityWork`: rows already scored are reused), the
 * correctness cache (one claim extraction and its verification batches per deck and judge, reused
 * across audiences). The disk cache answers repeated prompts.
 *
 * Estimated, with the assumption written in the row: verification batches (how many claims the
 * model extracts is unknown before it answers; the plan takes the claims the offline extractor
 * finds in the deck, at most `max_claims`, with their BM25 snippets), and image-mode decks (slides
 * are not rendered for a plan; 1,600 tokens a slide).
 */
export async function planEval(
  builder: CostPlanBuilder,
  options: PlanEvalOptions,
): Promise<{ jobs: number; failures: string[] }> {
  const layout = new RunLayout(options.dataDir);
  const evaluationsRoot = evaluationsRootFor(layout, options.run, options.variant);
  const failures: string[] = [];
  const frame: EvalPlanFrame = {
    builder,
    options,
    layout,
    settings: evaluationSettingsFor(options),
    judge: options.judge ?? describeJudge(builder.context.judge),
    weightsK: options.weightsK ?? WEIGHT_DEFAULTS.k,
    force: options.force ?? false,
    dirOf: (job) =>
      options.variant === undefined
        ? evaluationDirOf(layout, options.run, job)
        : join(evaluationsRoot, job.system, job.condition, job.audience, job.caseLabel),
    checkBank: lexicalBankCheck(builder, layout),
    weighted: new Set(),
    unweightable: new Set(),
    correctnessKeys: new Set(),
    fail: (job, why) =>
      failures.push(`${job.system}/${job.condition}/${job.audience}/${job.caseLabel}: ${why}`),
  };
  const planned = await plannedJobs(frame, failures);
  for (const stage of [EVAL_STAGES.answerability, EVAL_STAGES.claimExtraction, EVAL_STAGES.claimVerification])
    builder.stage(stage);
  for (const planned1 of planned) {
    try {
      await planJob(frame, planned1);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      frame.fail(planned1.job, `${error.message}; the job fails`);
    }
  }
  for (const failure of failures) builder.note(`eval: ${failure}`);
  return { jobs: planned.length, failures };
}

type PlannedJob = { job: EvaluationJob; deck?: Deck; assumption?: string };

/** The jobs to plan: the assumed ones, or those the filters select on disk (discovery failures noted). */
async function plannedJobs(frame: EvalPlanFrame, failures: string[]): Promise<PlannedJob[]> {
  const { options } = frame;
  if (options.assumedJobs) return [...options.assumedJobs];
  const selected = await selectEvaluationJobs(frame.layout, options.run, options.filters ?? {});
  for (const failure of selected.failures) failures.push(failure.error.message);
  return selected.jobs.filter((job) => options.include?.(job.caseLabel) ?? true).map((job) => ({ job }));
}

/** Plans the missing weights of a job's pair once; false when they cannot be made (the job fails). */
async function planJobWeights(frame: EvalPlanFrame, job: EvaluationJob, weightsFile: string, ready: boolean) {
  const { options, weightsK } = frame;
  const pair = `${job.caseLabel}\u0000${job.audience}`;
  if (!ready && !frame.weighted.has(pair) && !options.weightsPlanned) {
    frame.weighted.add(pair);
    const made = await planWeights(frame.builder, {
      layout: frame.layout,
      pairs: [{ caseLabel: job.caseLabel, audience: job.audience }],
      k: weightsK,
      ...(weightsK === WEIGHT_DEFAULTS.k ? {} : { weightsFile: () => weightsFile }),
      ...(options.assumedBank ? { assumedBank: options.assumedBank } : {}),
    });
    if (made.failed.length > 0) frame.unweightable.add(pair);
  }
  return !frame.unweightable.has(pair);
}

/**
 * Whether the job is current (then its work is reused: no call), or its weights do not fit the
 * bank (then it fails). Only jobs whose weights exist can be either.
 */
async function currentOrStale(
  frame: EvalPlanFrame,
  job: EvaluationJob,
  weightsFile: string,
): Promise<boolean> {
  const { layout, settings, builder } = frame;
  const mismatch = await findWeightsBankMismatch(layout, job.caseLabel, job.audience, weightsFile);
  if (mismatch !== null) {
    frame.fail(job, `weights do not fit the probe bank (${mismatch}); the job fails, no call`);
    return true;
  }
  const evaluationDir = frame.dirOf(job);
  const inputs = await readJobInputs(job, {
    layout,
    judgeId: frame.judge.id,
    settings,
    evaluationDir,
    weightsFile,
  });
  if (frame.force || !(await isJobCurrent(evaluationDir, inputs.wanted))) return false;
  const probes = await countLines(layout.probesFile(job.caseLabel));
  builder.reuse(EVAL_STAGES.answerability, Math.ceil(probes / settings.batchSize));
  if (settings.correctness !== false) builder.reuse(EVAL_STAGES.claimExtraction, 1);
  return true;
}

/** One job: weights, reuse, refusal, then the units of its answerability and correctness, priced. */
async function planJob(frame: EvalPlanFrame, planned: PlannedJob): Promise<void> {
  const { job } = planned;
  const { layout, options, judge } = frame;
  const weightsFile = weightsFileForK(layout, job.caseLabel, job.audience, frame.weightsK);
  const assumedBank = options.assumedBank?.(job.caseLabel);
  // Only answerability counts the bank's probes; claims come from the deck and the source.
  if (!assumedBank) await frame.checkBank(EVAL_STAGES.answerability, job.caseLabel);
  // A bank made anew by this run makes any weights on disk stale: they are made again too.
  const weightsReady = !assumedBank && existsSync(weightsFile);
  if (!(await planJobWeights(frame, job, weightsFile, weightsReady))) {
    frame.fail(job, 'its weights cannot be made (see the weights note); the job fails, no call');
    return;
  }
  if (weightsReady && (await currentOrStale(frame, job, weightsFile))) return;
  if (imageInputRefusal(frame.settings.judgeInput, judge) !== null) {
    frame.fail(job, `judge input "image" with the ${judge.id} judge: the job fails, no call`);
    return;
  }
  const sourceFile = layout.sourceContextFile(job.caseLabel);
  const sourceText = existsSync(sourceFile)
    ? await readUtf8Text(sourceFile)
    : options.assumedSource?.(job.caseLabel);
  if (sourceText === undefined) {
    frame.fail(job, `no source context (${sourceFile}): the job fails, no call`);
    return;
  }
  const deck =
    planned.deck ?? (await (options.readDeck ?? ((file: string) => readDeckFile(file)))(job.deckFile));
  const probesFile = layout.probesFile(job.caseLabel);
  const probes = assumedBank?.probes ?? (await readJsonlAll(probesFile, probeSchema));
  const hashes = {
    deckSha256: planned.deck ? hashBytes(JSON.stringify(planned.deck.slides)) : await hashFile(job.deckFile),
    probesSha256: assumedBank ? hashBytes(JSON.stringify(probes)) : await hashFile(probesFile),
  };
  const assumption = planned.assumption ?? assumedBank?.assumption;
  const work = {
    job,
    deck,
    deckText: formatDeckText(deck),
    probes,
    sourceText,
    hashes,
    ...(assumption ? { assumption } : {}),
  };
  await planAnswerability(frame, work);
  if (frame.settings.correctness !== false) await planCorrectness(frame, work);
}

interface JobWork {
  job: EvaluationJob;
  deck: Deck;
  deckText: string;
  probes: Probe[];
  sourceText: string;
  hashes: { deckSha256: string; probesSha256: string };
  assumption?: string;
}

async function planAnswerability(frame: EvalPlanFrame, work: JobWork): Promise<void> {
  const { deck, job } = work;
  const { judge, settings } = frame;
  const { mode } = judgeInputModeFor(deck, settings, judge);
  const evaluationDir = frame.dirOf(job);
  const slideImages =
    mode === 'image'
      ? deck.slides.map((slide) => ({
          index: slide.index,
          mediaType: 'image/png' as const,
          data: IMAGE_PLACEHOLDER,
        }))
      : [];
  const assumption =
    mode === 'image'
      ? `image mode (${deck.slide_count} slides): slides are not rendered for a plan, so images count 1,600 tokens each and the disk cache is not consulted`
      : work.assumption;
  const { units } = await readAnswerabilityWork(
    {
      probes: work.probes,
      reuseKey: scoreReuseKeyOf(judge, mode, work.hashes, settings.batchSize),
      finalFile: join(evaluationDir, EVALUATION_FILES.probeScores),
      partialFile: join(evaluationDir, PARTIAL_SCORES_FILE),
      force: frame.force,
      request: { mode, deckText: work.deckText, slideImages, sourceContext: work.sourceText },
      ...(assumption ? { assumption } : {}),
    },
    judge,
  );
  await priceUnits(frame.builder, units);
}

async function planCorrectness(frame: EvalPlanFrame, work: JobWork): Promise<void> {
  const { judge, settings, layout, options } = frame;
  const claims = settings.claims;
  const cacheKey = correctnessCacheKey({
    deckSha256: work.hashes.deckSha256,
    sourceSha256: hashBytes(work.sourceText),
    judgeId: judge.id,
    settings: claims,
  });
  const cacheFile = join(
    options.correctnessCacheDir ?? layout.correctnessCacheDir(options.run),
    `${cacheKey}.json`,
  );
  const cached = !frame.force && (frame.correctnessKeys.has(cacheKey) || existsSync(cacheFile));
  frame.correctnessKeys.add(cacheKey);
  const base = { job: '', reads: [], settings: claims, cacheKey };
  const extraction = claimExtractionUnit(
    {
      ...base,
      deckText: work.deckText,
      cached: cached ? cacheFile : null,
      ...(work.assumption ? { assumption: work.assumption } : {}),
    },
    judge,
  );
  await priceUnits(frame.builder, [extraction]);
  if (cached) return;
  // The offline judge's claims are exactly these; a model's are assumed to be as many and as long.
  const items = verificationItems(
    extractClaimsLexically(work.deck, claims.max_claims),
    work.sourceText,
    claims,
  );
  const assumption =
    judge.kind === 'offline'
      ? work.assumption
      : `claims per deck = those the offline extractor finds in it (at most max_claims ${claims.max_claims}), verified in batches of ${claims.verify_batch_size} with their BM25 snippets; the model may extract more or fewer`;
  await priceUnits(
    frame.builder,
    verificationUnits({ ...base, items, ...(assumption ? { assumption } : {}) }, judge),
  );
}
