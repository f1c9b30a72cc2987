import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Deck, InputError, type ProgressReporter, RunLayout, silentProgress } from '@xsb/core';
import { readDeck as readDeckFile } from '@xsb/decks';
import type { CreateLlmClientOptions } from '@xsb/llm';
import { DEFAULT_TAU_A, evaluationsRootFor } from '@xsb/metrics';
import {
  createUtilityJudge,
  ensureAudienceWeights,
  findWeightsBankMismatch,
  WEIGHT_DEFAULTS,
  weightsFileForK,
} from '@xsb/weights';
import type { EvaluationJob } from './discover-evaluation-jobs';
import {
  type DiscoveryFailure,
  discoverDeckRows,
  expandEvaluationJobs,
  type JobFilters,
} from './discover-evaluation-jobs';
import { createEvalJudge, type EvalJudge } from './eval-judge';
import { type EvaluationSettings, evaluateJob, type JobResult, type RenderSlides } from './evaluate-job';
import type { JudgeInputMode } from './probe-judgment';
import { renderSlidesWithDecks } from './render-slides-with-decks';
import { type ClaimSettings, DEFAULT_CLAIM_SETTINGS } from './score-deck-correctness';

export const DEFAULT_BATCH_SIZE = 12;
export const DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE = 3;
export const DEFAULT_EVAL_CONCURRENCY = 4;

/** Model client settings a run passes to every judge it creates (see @xsb/llm `createLlmClient`). */
export type ModelClientSettings = Pick<
  CreateLlmClientOptions,
  'env' | 'cacheDir' | 'noCache' | 'refresh' | 'limits'
>;

/** The client options of every judge in a run: the caller's settings, calls logged to the run's ledger. */
export function runClientOptions(settings: ModelClientSettings, ledgerFile: string): CreateLlmClientOptions {
  return {
    ...(settings.env ? { env: settings.env } : {}),
    ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
    ...(settings.noCache !== undefined ? { noCache: settings.noCache } : {}),
    ...(settings.refresh !== undefined ? { refresh: settings.refresh } : {}),
    ...(settings.limits ? { limits: settings.limits } : {}),
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
  concurrency?: number;
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
  /** Called after each job, in job order (e.g. to stream rows as they finish). */
  onResult?: (result: JobResult) => void | Promise<void>;
}

export interface EvaluationRunResult {
  judge: string;
  results: JobResult[];
  discoveryFailures: DiscoveryFailure[];
}

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${what} must be a positive integer, got ${value}`);
  return value;
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
  const settings: EvaluationSettings = {
    batchSize: positiveInteger(options.batchSize ?? DEFAULT_BATCH_SIZE, 'batch size'),
    tauA: options.tauA ?? DEFAULT_TAU_A,
    claims: { ...DEFAULT_CLAIM_SETTINGS, ...options.claims },
    imageModeWordsPerSlide: options.imageModeWordsPerSlide ?? DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE,
    concurrency: positiveInteger(options.concurrency ?? DEFAULT_EVAL_CONCURRENCY, 'concurrency'),
    ...(options.judgeInput === 'image' ? { judgeInput: 'image' as const } : {}),
    ...(options.correctness === false ? { correctness: false } : {}),
  };
  const weightsK = positiveInteger(options.weightsK ?? WEIGHT_DEFAULTS.k, 'weights k');
  const weightsFile = (l: RunLayout, caseLabel: string, audience: string) =>
    weightsFileForK(l, caseLabel, audience, weightsK);
  const evaluationsRoot = evaluationsRootFor(layout, options.run, options.variant);
  const ensureWeights =
    options.ensureWeights ??
    (async (l: RunLayout, caseLabel: string, audience: string) => {
      const file = weightsFile(l, caseLabel, audience);
      if (existsSync(file)) {
        // Weights made for an older bank would silently drop or mis-weight probes: refuse them.
        const mismatch = await findWeightsBankMismatch(l, caseLabel, audience, file);
        if (mismatch === null) return;
        throw new InputError(
          `does not fit the current probe bank (${mismatch}); rerun \`xsb weights --force --case ${caseLabel}\``,
          { file },
        );
      }
      const made = await ensureAudienceWeights(l, caseLabel, audience, {
        judge: createUtilityJudge(judgeSpec, llmOptions),
        k: weightsK,
        file,
      });
      if (made.status === 'failed')
        throw new InputError(
          `could not weight the probes for ${audience}: ${made.error ?? `${made.failures} probe(s) failed`}`,
          {
            file: made.weightsFile,
          },
        );
    });
  const { rows, failures: rowFailures } = await discoverDeckRows(layout, options.run);
  const { jobs, failures: jobFailures } = await expandEvaluationJobs(layout, rows, options.filters);
  const progress = options.progress ?? silentProgress;
  progress.start('evaluate', jobs.length);
  const results: JobResult[] = [];
  for (const job of jobs) {
    const result = await evaluateJob(job, {
      layout,
      run: options.run,
      judge,
      settings,
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
        : { weightsFile: (c: string, a: string) => weightsFile(layout, c, a) }),
      ...(options.scoreDonors ? { scoreDonors: options.scoreDonors } : {}),
    });
    results.push(result);
    await options.onResult?.(result);
    progress.tick(1, `${job.system}/${job.condition}/${job.audience}/${job.caseLabel}: ${result.outcome}`);
  }
  progress.finish(`${results.filter((r) => r.outcome !== 'failed').length}/${results.length} jobs done`);
  return { judge: judge.id, results, discoveryFailures: [...rowFailures, ...jobFailures] };
}
