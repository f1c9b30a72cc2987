import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  countingProgress,
  type Deck,
  hashFile,
  InputError,
  isCaseInShard,
  isXsbError,
  mapWithConcurrency,
  type ProgressReporter,
  plural,
  RunLayout,
  type Shard,
  type StageEventListener,
  silentProgress,
  UsageError,
} from '@xsb/core';
import { readDeck as readDeckFile } from '@xsb/decks';
import { type CreateLlmClientOptions, createJudge, parseJudgeSpec, replayStoreModelLabel } from '@xsb/llm';
import { assertFiltersMatch, DEFAULT_TAU_A, evaluationsRootFor, hasFilters } from '@xsb/metrics';
import {
  createUtilityJudge,
  ensureAudienceWeights,
  findWeightsBankMismatch,
  WEIGHT_DEFAULTS,
  weightsFileForK,
} from '@xsb/weights';
import {
  type DiscoveryFailure,
  deckFolderIdentity,
  discoverDeckRows,
  type EvaluationJob,
  expandEvaluationJobs,
  type JobFilters,
} from './discover-evaluation-jobs';
import { createEvalJudge, type EvalJudge } from './eval-judge';
import {
  type EvaluateJobContext,
  type EvaluationSettings,
  evaluateJob,
  type JobResult,
  type RenderSlides,
} from './evaluate-job';
import { evaluateRepeats } from './evaluate-repeats';
import type { JudgeInputMode } from './probe-judgment';
import { renderSlidesWithDecks } from './render-slides-with-decks';
import { type ClaimSettings, DEFAULT_CLAIM_SETTINGS } from './score-deck-correctness';

export const DEFAULT_BATCH_SIZE = 12;
export const DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE = 3;
export const DEFAULT_EVAL_CONCURRENCY = 4;

/** Model client settings a run passes to every judge it creates (see @xsb/llm `createLlmClient`). */
export type ModelClientSettings = Pick<
  CreateLlmClientOptions,
  'env' | 'cacheDir' | 'noCache' | 'refresh' | 'limits' | 'prices' | 'batch' | 'fill'
>;

/** The client options of every judge in a run: the caller's settings, calls logged to the run's ledger. */
export function runClientOptions(settings: ModelClientSettings, ledgerFile: string): CreateLlmClientOptions {
  return {
    ...(settings.env ? { env: settings.env } : {}),
    ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
    ...(settings.noCache !== undefined ? { noCache: settings.noCache } : {}),
    ...(settings.refresh !== undefined ? { refresh: settings.refresh } : {}),
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.prices ? { prices: settings.prices } : {}),
    ...(settings.batch ? { batch: settings.batch } : {}),
    ...(settings.fill ? { fill: settings.fill } : {}),
    ledgerFile,
  };
}

export interface RunEvaluationOptions extends ModelClientSettings {
  dataDir: string;
  run: string;
  /** `lexical` (default) or a model judge spec; or a judge built by the caller. */
  judge?: string | EvalJudge;
  tauA?: number;
  batchSize?: number;
  claims?: Partial<ClaimSettings>;
  imageModeWordsPerSlide?: number;
  /** Answerability batches (and verification batches) of one job in flight at once (default 4). */
  concurrency?: number;
  /**
   * Decks whose jobs run at once (default 1: one job after another). The jobs of one deck (an
   * agnostic deck's audiences; decks with the same bytes count as one) always run in order, as they
   * share its correctness cache, so the artifacts are the same at any value; `--batch` raises it so
   * a provider batch collects many jobs' calls.
   */
  jobConcurrency?: number;
  /** Only the jobs of cases in this shard (`md5(case_label) % n == i`, core's rule). */
  shard?: Shard;
  correctnessCacheDir?: string;
  force?: boolean;
  filters?: JobFilters;
  progress?: ProgressReporter;
  /**
   * Produces a missing weights file. Default: stage 3 (`ensureAudienceWeights`) with the utility judge
   * of the same spec (`lexical` when `judge` is an object).
   */
  ensureWeights?: (layout: RunLayout, caseLabel: string, audience: string) => Promise<void>;
  readDeck?: (file: string) => Promise<Deck>;
  /** Default: `renderSlidesWithDecks`, so `xsb eval` and the demo judge image-only decks alike. */
  renderSlides?: RenderSlides;
  /**
   * Evaluate into `runs/<run>/evaluations@<variant>/` (same inner layout, no compact metrics copy)
   * instead of `evaluations/`: evaluations under other settings never replace the default ones.
   */
  variant?: string;
  /** Utility judgments per probe (default 3); another k reads and makes `weights@k<k>/` files. */
  weightsK?: number;
  /** `text` (default, spec 000) or `image`: every deck judged from rendered slides. */
  judgeInput?: JudgeInputMode;
  /** Claim-level correctness (default true). */
  correctness?: boolean;
  /** Evaluation folders whose score rows a job may reuse (matching reuse keys only). */
  scoreDonors?: (job: EvaluationJob, evaluationDir: string) => string[];
  /** The stage events of every job's work units (`eval.answerability`, `eval.claims`, `eval.verification`). */
  onEvent?: StageEventListener;
  /** Called after each job, in job order (e.g. to stream rows as they finish). */
  onResult?: (result: JobResult) => void | Promise<void>;
  /**
   * Test–retest (default 1: the ordinary evaluation only). N > 1 asks the judge N − 1 more times for
   * every job that is done, each repeat its own cache entry, into `probe_scores.repeat-<r>.jsonl` and
   * `correctness.repeat-<r>.json` beside the ordinary files (which stay repeat 0's); see `JobResult.repeats`.
   */
  repeats?: number;
}

export interface EvaluationRunResult {
  judge: string;
  results: JobResult[];
  discoveryFailures: DiscoveryFailure[];
}

/**
 * The model label of each replay or record store among the judge ids, read once per store (relative
 * store paths resolve against the working folder, as the replay client opens them). A store that is
 * absent or unreadable has no label here; the judge itself reports that problem when it is used.
 */
export function createModelLabelReader(): (judgeIds: readonly string[]) => Record<string, string> {
  const known = new Map<string, string | undefined>();
  return (judgeIds) => {
    const labels: Record<string, string> = {};
    for (const id of new Set(judgeIds)) {
      if (!known.has(id)) {
        let label: string | undefined;
        try {
          const spec = parseJudgeSpec(id);
          if (spec.kind === 'replay' || spec.kind === 'record') label = replayStoreModelLabel(spec.store);
        } catch (error) {
          if (!isXsbError(error)) throw error;
        }
        known.set(id, label);
      }
      const label = known.get(id);
      if (label !== undefined) labels[id] = label;
    }
    return labels;
  };
}

/**
 * The judge calls a job is expected to make: one per answerability batch and one claim extraction
 * (verification batches are added once the claims are known). Reused work is skipped, not removed.
 */
async function plannedCalls(layout: RunLayout, jobs: readonly EvaluationJob[], batchSize: number) {
  const probeCounts = new Map<string, number>();
  let total = 0;
  const perJob: number[] = [];
  for (const job of jobs) {
    let count = probeCounts.get(job.caseLabel);
    if (count === undefined) {
      const file = layout.probesFile(job.caseLabel);
      count = existsSync(file)
        ? (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length
        : 0;
      probeCounts.set(job.caseLabel, count);
    }
    const calls = Math.ceil(count / batchSize) + 1;
    perJob.push(calls);
    total += calls;
  }
  return { total, perJob };
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${what} must be a positive integer, got ${value}`);
  return value;
}

/** The evaluation settings of run options, defaults filled in (a bad batch size or concurrency: RangeError). */
export function evaluationSettingsFor(
  options: Pick<
    RunEvaluationOptions,
    'batchSize' | 'tauA' | 'claims' | 'imageModeWordsPerSlide' | 'concurrency' | 'judgeInput' | 'correctness'
  >,
): EvaluationSettings {
  return {
    batchSize: positiveInteger(options.batchSize ?? DEFAULT_BATCH_SIZE, 'batch size'),
    tauA: options.tauA ?? DEFAULT_TAU_A,
    claims: { ...DEFAULT_CLAIM_SETTINGS, ...options.claims },
    imageModeWordsPerSlide: options.imageModeWordsPerSlide ?? DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE,
    concurrency: positiveInteger(options.concurrency ?? DEFAULT_EVAL_CONCURRENCY, 'concurrency'),
    ...(options.judgeInput === 'image' ? { judgeInput: 'image' as const } : {}),
    ...(options.correctness === false ? { correctness: false } : {}),
  };
}

/**
 * The jobs of a run that the filters select (of one shard when `shard` is given), in evaluation
 * order, and the deck folders or jobs that could not be expanded. A filter value that names nothing, or values that match no job together,
 * is a UsageError before any work (the known values listed).
 */
export async function selectEvaluationJobs(
  layout: RunLayout,
  run: string,
  filters: JobFilters,
  shard?: Shard,
): Promise<{ jobs: EvaluationJob[]; failures: DiscoveryFailure[] }> {
  const { rows, failures: rowFailures } = await discoverDeckRows(layout, run);
  const expanded = await expandEvaluationJobs(layout, rows, filters);
  const inShard = (caseLabel: string | null) => caseLabel === null || isCaseInShard(caseLabel, shard);
  const jobs = expanded.jobs.filter((job) => inShard(job.caseLabel));
  // A failure above the case level (no deck folder, a bad system folder) belongs to every shard.
  const ofShard = (failure: DiscoveryFailure) =>
    inShard(deckFolderIdentity(layout, run, failure.where).case_label);
  const jobFailures = expanded.failures.filter(ofShard);
  if (hasFilters(filters) && rows.length > 0) {
    const failedFolders = rowFailures.map((failure) => deckFolderIdentity(layout, run, failure.where));
    assertFiltersMatch(filters, [...expanded.known, ...failedFolders], `in run "${run}"`);
    if (jobs.length === 0 && jobFailures.length === 0)
      throw new UsageError(
        `no evaluation job of run "${run}" matches all the filters at once (each value matches some job, but not together)`,
      );
  }
  return { jobs, failures: [...rowFailures.filter(ofShard), ...jobFailures] };
}

/**
 * Makes a missing weights file with stage 3 (the utility judge of the run's spec, built on first
 * use), and refuses weights made for another bank. Jobs running at once that need the same missing
 * weights wait for one another's.
 */
function weightsEnsurer(
  options: RunEvaluationOptions,
  judgeSpec: string,
  llmOptions: CreateLlmClientOptions,
  weightsK: number,
): (layout: RunLayout, caseLabel: string, audience: string) => Promise<void> {
  let utilityJudge: ReturnType<typeof createUtilityJudge> | undefined;
  const makeWeights =
    options.ensureWeights ??
    (async (l: RunLayout, caseLabel: string, audience: string) => {
      const file = weightsFileForK(l, caseLabel, audience, weightsK);
      if (existsSync(file)) {
        // Weights made for an older bank would silently drop or mis-weight probes: refuse them.
        const mismatch = await findWeightsBankMismatch(l, caseLabel, audience, file);
        if (mismatch === null) return;
        throw new InputError(
          `does not fit the current probe bank (${mismatch}); make the weights of case ${caseLabel} again`,
          { file, remedy: { step: 'weights', force: true, caseLabel, dataDir: l.dataDir } },
        );
      }
      utilityJudge ??= createUtilityJudge(createJudge(judgeSpec, { stage: 'weights', ...llmOptions }));
      const made = await ensureAudienceWeights(l, caseLabel, audience, {
        judge: utilityJudge,
        k: weightsK,
        file,
      });
      if (made.status === 'failed')
        throw new InputError(
          `could not weight the probes for ${audience}: ${made.error ?? `${plural(made.failures, 'probe')} failed`}`,
          { file: made.weightsFile },
        );
    });
  const weighing = new Map<string, Promise<void>>();
  return (l, caseLabel, audience) => {
    const key = `${caseLabel}\u0000${audience}`;
    let made = weighing.get(key);
    if (!made) {
      made = makeWeights(l, caseLabel, audience);
      made.catch(() => weighing.delete(key));
      weighing.set(key, made);
    }
    return made;
  };
}

/** What every job of a run shares (its folder, weights file and reuse donors by the run's options). */
function runJobContext(
  options: RunEvaluationOptions,
  layout: RunLayout,
  judge: EvalJudge,
  weightsK: number,
  ensureWeights: ReturnType<typeof weightsEnsurer>,
): EvaluateJobContext {
  const evaluationsRoot = evaluationsRootFor(layout, options.run, options.variant);
  return {
    layout,
    run: options.run,
    judge,
    settings: evaluationSettingsFor(options),
    correctnessCacheDir: options.correctnessCacheDir ?? layout.correctnessCacheDir(options.run),
    force: options.force ?? false,
    ensureWeights: (caseLabel, audience) => ensureWeights(layout, caseLabel, audience),
    readDeck: options.readDeck ?? ((file) => readDeckFile(file)),
    renderSlides: options.renderSlides ?? renderSlidesWithDecks,
    ...(options.variant === undefined
      ? {}
      : {
          compactMetrics: false,
          evaluationDir: (j: EvaluationJob) =>
            join(evaluationsRoot, j.system, j.condition, j.audience, j.caseLabel),
        }),
    ...(weightsK === WEIGHT_DEFAULTS.k
      ? {}
      : { weightsFile: (c: string, a: string) => weightsFileForK(layout, c, a, weightsK) }),
    ...(options.scoreDonors ? { scoreDonors: options.scoreDonors } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    modelLabels: createModelLabelReader(),
  };
}

/**
 * Stage 5 for a run: discovers the decks, expands them into (deck, audience) jobs and evaluates each
 * in sorted order. Failed jobs are recorded (status.json, the result list) and the others go on.
 */
export async function runEvaluation(options: RunEvaluationOptions): Promise<EvaluationRunResult> {
  const layout = new RunLayout(options.dataDir);
  const llmOptions = runClientOptions(options, layout.usageLedgerFile(options.run));
  const judgeSpec = typeof options.judge === 'object' ? 'lexical' : (options.judge ?? 'lexical');
  const judge = typeof options.judge === 'object' ? options.judge : createEvalJudge(judgeSpec, llmOptions);
  const jobConcurrency = positiveInteger(options.jobConcurrency ?? 1, 'job concurrency');
  const weightsK = positiveInteger(options.weightsK ?? WEIGHT_DEFAULTS.k, 'weights k');
  const repeats = positiveInteger(options.repeats ?? 1, 'repeats');
  if (repeats > 1 && !judge.withRepeat)
    throw new UsageError(
      `judge ${judge.id} cannot be asked again, so it has no test–retest (repeats ${repeats})`,
    );
  const ensureWeights = weightsEnsurer(options, judgeSpec, llmOptions, weightsK);
  const jobContext = runJobContext(options, layout, judge, weightsK, ensureWeights);
  const { jobs, failures: discoveryFailures } = await selectEvaluationJobs(
    layout,
    options.run,
    options.filters ?? {},
    options.shard,
  );
  const progress = options.progress ?? silentProgress;
  const plan = await plannedCalls(layout, jobs, jobContext.settings.batchSize);
  progress.start('evaluate', plan.total, { unit: 'judge calls' });
  const runJob = async (job: EvaluationJob, index: number): Promise<JobResult> => {
    const jobProgress = countingProgress(progress);
    const result = await evaluateJob(job, { ...jobContext, progress: jobProgress.reporter });
    // A reused or failed job made fewer calls than planned: count the rest as done without work.
    const { done, grown } = jobProgress.counted;
    const note = `job ${index + 1}/${jobs.length} ${job.system}/${job.condition}/${job.audience}/${job.caseLabel}: ${result.outcome}`;
    progress.skip?.(Math.max(0, plan.perJob[index]! + grown - done), note);
    return result;
  };
  const results = await runJobsByDeck(jobs, jobConcurrency, runJob, options.onResult);
  // A deck folder that yields no job counts as failed, so "3/3 jobs done" never stands beside 3 of them.
  const failed = results.filter((r) => r.outcome === 'failed').length + discoveryFailures.length;
  const total = results.length + discoveryFailures.length;
  progress.finish(`${total - failed}/${plural(total, 'job')} done${failed > 0 ? `, ${failed} failed` : ''}`);
  if (repeats > 1) await evaluateRepeats(results, jobContext, repeats, progress, plan.perJob);
  return { judge: judge.id, results, discoveryFailures };
}

/**
 * Runs the jobs with up to `concurrency` decks at once, the jobs of one deck (by content) in their
 * order, and reports each result to `onResult` in job order (so a caller streaming rows writes them
 * in the same order at any concurrency). Returns the results in job order.
 */
async function runJobsByDeck(
  jobs: readonly EvaluationJob[],
  concurrency: number,
  run: (job: EvaluationJob, index: number) => Promise<JobResult>,
  onResult: ((result: JobResult) => void | Promise<void>) | undefined,
): Promise<JobResult[]> {
  const results = new Array<JobResult | undefined>(jobs.length);
  let reported = 0;
  let reporting: Promise<void> = Promise.resolve();
  const report = () => {
    reporting = reporting.then(async () => {
      while (reported < jobs.length && results[reported] !== undefined) {
        const result = results[reported]!;
        reported += 1;
        await onResult?.(result);
      }
    });
    return reporting;
  };
  if (concurrency === 1) {
    for (const [index, job] of jobs.entries()) {
      results[index] = await run(job, index);
      await onResult?.(results[index]!);
    }
    return results as JobResult[];
  }
  const byDeck = new Map<string, number[]>();
  const digests = new Map<string, Promise<string>>();
  for (const [index, job] of jobs.entries()) {
    let digest = digests.get(job.deckFile);
    if (!digest) {
      // An unreadable deck fails its own job later; here it only needs a group of its own.
      digest = hashFile(job.deckFile).catch(() => `unreadable:${job.deckFile}`);
      digests.set(job.deckFile, digest);
    }
    const key = await digest;
    const group = byDeck.get(key) ?? [];
    group.push(index);
    byDeck.set(key, group);
  }
  await mapWithConcurrency([...byDeck.values()], concurrency, async (group) => {
    for (const index of group) {
      results[index] = await run(jobs[index]!, index);
      await report();
    }
  });
  await report();
  return results as JobResult[];
}
