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
} from '@xsb/core';
import { formatDeckText, readDeck as readDeckFile } from '@xsb/decks';
import {
  buildAnswerabilityRequest,
  buildClaimExtractionRequest,
  buildClaimVerificationRequest,
  correctnessCacheKey,
  type DeckClaim,
  EVAL_STAGES,
  type EvaluationJob,
  evaluationDirOf,
  evaluationSettingsFor,
  extractClaimsLexically,
  isJobCurrent,
  type JobFilters,
  type JudgeInputMode,
  PARTIAL_SCORES_FILE,
  pendingScoreBatches,
  readJobInputs,
  SourceRetriever,
  selectEvaluationJobs,
} from '@xsb/eval';
import { isOfflineJudge } from '@xsb/llm';
import { EVALUATION_FILES, evaluationsRootFor } from '@xsb/metrics';
import { findWeightsBankMismatch, WEIGHT_DEFAULTS, weightsFileForK } from '@xsb/weights';
import { lexicalBankCheck } from './bank-judge';
import type { CostPlanBuilder } from './cost-plan-builder';
import { cappedOutput, OUTPUT_TOKEN_ESTIMATES } from './output-token-estimates';
import { planWeights } from './plan-weights';

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
}

const IMAGE_PLACEHOLDER = new Uint8Array(0);

/** Non-empty lines of a JSONL file (the probes a finished job judged). */
async function countLines(file: string): Promise<number> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
}

/**
 * Stage 5's calls for a run, walking what `runEvaluation` walks: the jobs the filters select; for
 * each, missing weights (stage 3, planned once per pair), the reuse check (a finished job of the same
 * inputs makes no call), the fixed answerability batches (rows already scored are reused), the
 * correctness cache (one claim extraction and its verification batches per deck and judge, reused
 * across audiences). Prompts are the stages' own builders; the disk cache answers repeated prompts.
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
  const settings = evaluationSettingsFor(options);
  const judgeId = builder.context.judge;
  const offline = isOfflineJudge(judgeId);
  const weightsK = options.weightsK ?? WEIGHT_DEFAULTS.k;
  const force = options.force ?? false;
  const readDeck = options.readDeck ?? ((file: string) => readDeckFile(file));
  const evaluationsRoot = evaluationsRootFor(layout, options.run, options.variant);
  const dirOf = (job: EvaluationJob) =>
    options.variant === undefined
      ? evaluationDirOf(layout, options.run, job)
      : join(evaluationsRoot, job.system, job.condition, job.audience, job.caseLabel);
  const failures: string[] = [];
  const fail = (job: EvaluationJob, why: string) =>
    failures.push(`${job.system}/${job.condition}/${job.audience}/${job.caseLabel}: ${why}`);

  const planned: Array<{ job: EvaluationJob; deck?: Deck; assumption?: string }> = [];
  if (options.assumedJobs) planned.push(...options.assumedJobs);
  else {
    const selected = await selectEvaluationJobs(layout, options.run, options.filters ?? {});
    for (const failure of selected.failures) failures.push(failure.error.message);
    planned.push(
      ...selected.jobs.filter((job) => options.include?.(job.caseLabel) ?? true).map((job) => ({ job })),
    );
  }
  for (const stage of [EVAL_STAGES.answerability, EVAL_STAGES.claimExtraction, EVAL_STAGES.claimVerification])
    builder.stage(stage);
  const checkBank = lexicalBankCheck(builder, layout);
  const weighted = new Set<string>();
  const unweightable = new Set<string>();
  const correctnessKeys = new Set<string>();
  for (const { job, deck: assumedDeck, assumption } of planned) {
    const evaluationDir = dirOf(job);
    const weightsFile = weightsFileForK(layout, job.caseLabel, job.audience, weightsK);
    const pair = `${job.caseLabel}\u0000${job.audience}`;
    const assumedBank = options.assumedBank?.(job.caseLabel);
    // Only answerability counts the bank's probes; claims come from the deck and the source.
    if (!assumedBank) await checkBank(EVAL_STAGES.answerability, job.caseLabel);
    // A bank made anew by this run makes any weights on disk stale: they are made again too.
    const weightsReady = !assumedBank && existsSync(weightsFile);
    if (!weightsReady && !weighted.has(pair) && !options.weightsPlanned) {
      weighted.add(pair);
      const made = await planWeights(builder, {
        layout,
        pairs: [{ caseLabel: job.caseLabel, audience: job.audience }],
        k: weightsK,
        ...(weightsK === WEIGHT_DEFAULTS.k ? {} : { weightsFile: () => weightsFile }),
        ...(options.assumedBank ? { assumedBank: options.assumedBank } : {}),
      });
      if (made.failed.length > 0) unweightable.add(pair);
    }
    if (unweightable.has(pair)) {
      fail(job, 'its weights cannot be made (see the weights note); the job fails, no call');
      continue;
    }
    try {
      if (weightsReady) {
        const mismatch = await findWeightsBankMismatch(layout, job.caseLabel, job.audience, weightsFile);
        if (mismatch !== null) {
          fail(job, `weights do not fit the probe bank (${mismatch}); the job fails, no call`);
          continue;
        }
        const inputs = await readJobInputs(job, {
          layout,
          judgeId,
          settings,
          evaluationDir,
          weightsFile,
        });
        if (!force && (await isJobCurrent(evaluationDir, inputs.wanted))) {
          const probes = await countLines(layout.probesFile(job.caseLabel));
          builder.reuse(EVAL_STAGES.answerability, Math.ceil(probes / settings.batchSize));
          if (settings.correctness !== false) builder.reuse(EVAL_STAGES.claimExtraction, 1);
          continue;
        }
      }
      if (settings.judgeInput === 'image' && offline) {
        fail(job, 'judge input "image" with the lexical judge: the job fails, no call');
        continue;
      }
      const sourceFile = layout.sourceContextFile(job.caseLabel);
      const sourceText = existsSync(sourceFile)
        ? await readUtf8Text(sourceFile)
        : options.assumedSource?.(job.caseLabel);
      if (sourceText === undefined) {
        fail(job, `no source context (${sourceFile}): the job fails, no call`);
        continue;
      }
      const deck = assumedDeck ?? (await readDeck(job.deckFile));
      const probesFile = layout.probesFile(job.caseLabel);
      const probes = assumedBank?.probes ?? (await readJsonlAll(probesFile, probeSchema));
      const jobAssumption = assumption ?? assumedBank?.assumption;
      const deckSha256 = assumedDeck
        ? hashBytes(JSON.stringify(assumedDeck.slides))
        : await hashFile(job.deckFile);
      const probesSha256 = assumedBank ? hashBytes(JSON.stringify(probes)) : await hashFile(probesFile);
      await planAnswerability(builder, {
        job,
        deck,
        probes,
        deckSha256,
        probesSha256,
        sourceText,
        evaluationDir,
        force,
        settings,
        offline,
        ...(jobAssumption ? { assumption: jobAssumption } : {}),
      });
      if (settings.correctness === false) continue;
      const key = correctnessCacheKey({
        deckSha256,
        sourceSha256: hashBytes(sourceText),
        judgeId,
        settings: settings.claims,
      });
      const cacheDir = options.correctnessCacheDir ?? layout.correctnessCacheDir(options.run);
      if (!force && (correctnessKeys.has(key) || existsSync(join(cacheDir, `${key}.json`)))) {
        builder.reuse(EVAL_STAGES.claimExtraction, 1);
        continue;
      }
      correctnessKeys.add(key);
      await planCorrectness(builder, {
        deck,
        sourceText,
        settings,
        offline,
        ...(jobAssumption ? { assumption: jobAssumption } : {}),
      });
    } catch (error) {
      if (!isXsbError(error)) throw error;
      fail(job, `${error.message}; the job fails`);
    }
  }
  for (const failure of failures) builder.note(`eval: ${failure}`);
  return { jobs: planned.length, failures };
}

async function planAnswerability(
  builder: CostPlanBuilder,
  input: {
    job: EvaluationJob;
    deck: Deck;
    probes: Probe[];
    deckSha256: string;
    probesSha256: string;
    sourceText: string;
    evaluationDir: string;
    force: boolean;
    settings: ReturnType<typeof evaluationSettingsFor>;
    offline: boolean;
    assumption?: string;
  },
): Promise<void> {
  const { deck, settings } = input;
  const sparse = deck.visible_word_count < settings.imageModeWordsPerSlide * Math.max(deck.slide_count, 1);
  const mode: JudgeInputMode =
    (sparse || settings.judgeInput === 'image') && !input.offline ? 'image' : 'text';
  const { batches, pending } = await pendingScoreBatches({
    probes: input.probes,
    reuseKey: {
      judge: builder.context.judge,
      judge_input_mode: mode,
      deck_sha256: input.deckSha256,
      probes_sha256: input.probesSha256,
      batch_size: settings.batchSize,
    },
    finalFile: join(input.evaluationDir, EVALUATION_FILES.probeScores),
    partialFile: join(input.evaluationDir, PARTIAL_SCORES_FILE),
    force: input.force,
  });
  builder.reuse(EVAL_STAGES.answerability, batches.length - pending.length);
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
      : input.assumption;
  const deckText = formatDeckText(deck);
  for (const batch of pending) {
    const request = buildAnswerabilityRequest({
      mode,
      deckText,
      slideImages,
      sourceContext: input.sourceText,
      probes: batch.probes,
    });
    await builder.add({
      stage: EVAL_STAGES.answerability,
      request,
      outputTokens: cappedOutput(
        OUTPUT_TOKEN_ESTIMATES.answerabilityPerProbe * batch.probes.length,
        request.maxTokens,
      ),
      ...(assumption ? { assumption } : {}),
    });
  }
}

async function planCorrectness(
  builder: CostPlanBuilder,
  input: {
    deck: Deck;
    sourceText: string;
    settings: ReturnType<typeof evaluationSettingsFor>;
    offline: boolean;
    assumption?: string;
  },
): Promise<void> {
  const { claims: claimSettings } = input.settings;
  const deckText = formatDeckText(input.deck);
  const extraction = buildClaimExtractionRequest(deckText, claimSettings.max_claims);
  await builder.add({
    stage: EVAL_STAGES.claimExtraction,
    request: extraction,
    outputTokens: cappedOutput(
      OUTPUT_TOKEN_ESTIMATES.claimPerClaim * claimSettings.max_claims,
      extraction.maxTokens,
    ),
    ...(input.assumption ? { assumption: input.assumption } : {}),
  });
  // The offline judge's claims are exactly these; a model's are assumed to be as many and as long.
  const claims: DeckClaim[] = extractClaimsLexically(input.deck, claimSettings.max_claims);
  const retriever = new SourceRetriever(input.sourceText, { chunkChars: claimSettings.chunk_chars });
  const items = claims.map((claim) => ({
    claim,
    snippets: retriever.search(claim.text, claimSettings.snippets_per_claim),
  }));
  const assumption = input.offline
    ? input.assumption
    : `claims per deck = those the offline extractor finds in it (at most max_claims ${claimSettings.max_claims}), verified in batches of ${claimSettings.verify_batch_size} with their BM25 snippets; the model may extract more or fewer`;
  for (let i = 0; i < items.length; i += claimSettings.verify_batch_size) {
    const batch = items.slice(i, i + claimSettings.verify_batch_size);
    const request = buildClaimVerificationRequest(batch);
    await builder.add({
      stage: EVAL_STAGES.claimVerification,
      request,
      outputTokens: cappedOutput(
        OUTPUT_TOKEN_ESTIMATES.verificationPerClaim * batch.length,
        request.maxTokens,
      ),
      ...(assumption ? { assumption } : {}),
    });
  }
}
