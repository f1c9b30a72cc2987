import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Deck, isXsbError, metricsSchema, RunLayout, readJson } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { cachedDeckDesign, DESIGN_METRICS } from '@xsb/design';
import { type RunEvaluationOptions, runEvaluation } from '@xsb/eval';
import { judgeFromClient, type LlmClient, offlineJudge } from '@xsb/llm';
import { EVALUATION_FILES } from '@xsb/metrics';
import {
  cachedHolisticScores,
  evaluateOrReuse,
  evaluationFilesFor,
  LAYOUT_CHECK_IDS,
  layoutCheckScore,
  loadInstanceAt,
  loadInstancesById,
  RUBRIC_DIMENSIONS,
  type RubricInstance,
  readMaterials,
  runLayoutChecks,
  scorePaper,
} from '@xsb/rubric';
import {
  DEFAULT_EVALUATOR_FAMILIES,
  DESIGN_EVALUATORS,
  type EvaluatorFamily,
  HOLISTIC_EVALUATORS,
  LAYOUT_EVALUATORS,
  RUBRIC_EVALUATORS,
  XSLIDES_EVALUATORS,
} from '../evaluator-ids';
import type { MetaScoreRow } from '../schemas/meta-sensitivity';
import type { DerivedRun } from './derived-run';

/** Model client settings passed on to stage 5 and the rubric judges (cache, limits, keys, prices of the ledger). */
export type ModelClientSettings = Pick<
  RunEvaluationOptions,
  'env' | 'cacheDir' | 'noCache' | 'refresh' | 'limits' | 'prices'
>;

/** The settings as given, absent ones left out (stage 5 and the judge get the same). */
export function clientSettings(options: ModelClientSettings): ModelClientSettings {
  return {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
    ...(options.noCache !== undefined ? { noCache: options.noCache } : {}),
    ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  };
}

export interface ScoreDecksOptions extends ModelClientSettings {
  dataDir: string;
  /** The source run: its correctness cache is reused. */
  run: string;
  judge: string;
  /** The model client for rubric items and the holistic baseline; null for the offline judge. */
  client: LlmClient | null;
  /** Rubric instances by case label. */
  instances: ReadonlyMap<string, RubricInstance>;
  tauA?: number;
  /** The evaluator families to score (default `DEFAULT_EVALUATOR_FAMILIES`); the others are reported as not requested. */
  families?: readonly EvaluatorFamily[];
}

export interface ScoredDecks {
  rows: MetaScoreRow[];
  failures: Array<{ where: string; error: string }>;
}

/** Rubric instances for the cases: `instance.yaml` files under `<data>/rubric/` and `--instance` files, matched by `id` = case label. */
export async function loadCaseInstances(
  dataDir: string,
  files: readonly string[],
): Promise<Map<string, RubricInstance>> {
  const instances = await loadInstancesById(join(dataDir, 'rubric'));
  for (const file of files) {
    const instance = await loadInstanceAt(resolve(file));
    instances.set(instance.id, instance);
  }
  return instances;
}

type Evaluation = Awaited<ReturnType<typeof runEvaluation>>;
type Materials = Map<string, Awaited<ReturnType<typeof readMaterials>>>;

interface DeckScoring {
  deck: DerivedRun['decks'][number];
  options: ScoreDecksOptions;
  families: ReadonlySet<EvaluatorFamily>;
  failures: ScoredDecks['failures'];
  push: (evaluator: string, value: number | null, reason?: string) => void;
  /** Every one of `evaluators` without a value, for `reason`. */
  nulls: (evaluators: readonly string[], reason: string) => void;
  notRequested: (family: EvaluatorFamily) => string;
}

/** Stages 5–6 over the derived run (skipped when X+Slides is not asked for). */
async function evaluateDerivedRun(
  derived: DerivedRun,
  options: ScoreDecksOptions,
  families: ReadonlySet<EvaluatorFamily>,
): Promise<Pick<Evaluation, 'results' | 'discoveryFailures'>> {
  if (!families.has('xslides')) return { results: [], discoveryFailures: [] };
  const layout = new RunLayout(options.dataDir);
  return runEvaluation({
    dataDir: options.dataDir,
    run: derived.run,
    judge: options.judge,
    correctnessCacheDir: layout.correctnessCacheDir(options.run),
    ...(options.tauA !== undefined ? { tauA: options.tauA } : {}),
    ...clientSettings(options),
  });
}

function jobsByDeckOf(
  evaluation: Pick<Evaluation, 'results' | 'discoveryFailures'>,
  failures: ScoredDecks['failures'],
) {
  for (const failure of evaluation.discoveryFailures)
    failures.push({ where: failure.where, error: failure.error.message });
  const jobsByDeck = new Map<string, Evaluation['results']>();
  for (const result of evaluation.results) {
    const key = `${result.job.system}/${result.job.condition}/${result.job.deckAudience}/${result.job.caseLabel}`;
    jobsByDeck.set(key, [...(jobsByDeck.get(key) ?? []), result]);
    if (result.outcome === 'failed')
      failures.push({ where: result.evaluationDir, error: result.error ?? 'failed' });
  }
  return jobsByDeck;
}

/** X+Slides rows: each metric's mean over the audiences the deck is evaluated for, null with the reason. */
async function xslidesRows(scoring: DeckScoring, jobs: Evaluation['results']): Promise<void> {
  const { push, families } = scoring;
  const metrics = [];
  let jobProblem: string | undefined = !families.has('xslides')
    ? scoring.notRequested('xslides')
    : jobs.length === 0
      ? 'no evaluation job for this deck'
      : undefined;
  for (const job of jobs) {
    const file = join(job.evaluationDir, EVALUATION_FILES.metrics);
    if (job.outcome === 'failed' || !existsSync(file)) {
      jobProblem = `evaluation failed for audience ${job.job.audience}: ${job.error ?? 'no metrics.json'}`;
      continue;
    }
    metrics.push(await readJson(file, metricsSchema));
  }
  for (const evaluator of XSLIDES_EVALUATORS) {
    if (jobProblem) {
      push(evaluator, null, jobProblem);
      continue;
    }
    const values = metrics
      .map((entry) => (entry as Record<string, unknown>)[evaluator.slice('xslides.'.length)])
      .filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
    push(
      evaluator,
      values.length === metrics.length && values.length > 0
        ? values.reduce((sum, value) => sum + value, 0) / values.length
        : null,
      'null in metrics.json for at least one audience (no included probe, or no checkable claim)',
    );
  }
}

async function rubricRows(
  scoring: DeckScoring,
  parsed: Deck,
  instance: RubricInstance | undefined,
  materials: Materials,
): Promise<void> {
  const { push, options, deck } = scoring;
  if (!scoring.families.has('rubric'))
    return scoring.nulls(RUBRIC_EVALUATORS, scoring.notRequested('rubric'));
  if (!instance) return scoring.nulls(RUBRIC_EVALUATORS, `no rubric instance with id "${deck.caseLabel}"`);
  try {
    let material = materials.get(instance.id);
    if (!material) {
      material = await readMaterials(instance.materials);
      materials.set(instance.id, material);
    }
    const judge = options.client
      ? judgeFromClient(options.judge, options.client)
      : { ...offlineJudge, id: options.judge };
    const { evaluation: verdicts } = await evaluateOrReuse(
      { instance, deck: parsed, materials: material, judge },
      evaluationFilesFor(deck.deckFile, options.judge),
    );
    const paper = scorePaper(verdicts.items);
    const reason = options.client
      ? 'no item of this dimension was judged'
      : `offline judge ${options.judge}: only check items are decided`;
    push('rubric.total', paper.total_percent === null ? null : paper.total_percent / 100, reason);
    for (const dimension of RUBRIC_DIMENSIONS)
      push(`rubric.${dimension}`, paper.dimensions[dimension].score, reason);
  } catch (error) {
    if (!isXsbError(error)) throw error;
    scoring.failures.push({ where: deck.deckFile, error: `rubric: ${error.message}` });
    scoring.nulls(RUBRIC_EVALUATORS, `rubric failed: ${error.message}`);
  }
}

function layoutRows(scoring: DeckScoring, parsed: Deck, instance: RubricInstance | undefined): void {
  const checks = runLayoutChecks(parsed, {
    ...(instance ? { slideRange: instance.slideRange, language: instance.language } : {}),
    requireSourceAttribution: true,
  });
  for (const id of LAYOUT_CHECK_IDS) {
    const check = checks.find((item) => item.id === id);
    if (!scoring.families.has('layout')) scoring.push(`layout.${id}`, null, scoring.notRequested('layout'));
    else
      scoring.push(
        `layout.${id}`,
        check ? layoutCheckScore(check, parsed.slide_count) : null,
        check ? check.detail : 'not run',
      );
  }
}

/** The holistic baseline's four scores, cached beside the deck per judge and deck hash. */
async function holisticRows(scoring: DeckScoring, parsed: Deck): Promise<void> {
  const { push, options, deck } = scoring;
  if (!scoring.families.has('holistic'))
    return scoring.nulls(HOLISTIC_EVALUATORS, scoring.notRequested('holistic'));
  if (!options.client)
    return scoring.nulls(
      HOLISTIC_EVALUATORS,
      `the holistic baseline needs a model judge (offline judge ${options.judge})`,
    );
  try {
    const score = await cachedHolisticScores(deck.deckFile, parsed, options.judge, options.client);
    for (const aspect of ['overall', 'content', 'design', 'coherence'] as const)
      push(`holistic.${aspect}`, score[aspect]);
  } catch (error) {
    if (!isXsbError(error)) throw error;
    scoring.failures.push({ where: deck.deckFile, error: `holistic: ${error.message}` });
    scoring.nulls(HOLISTIC_EVALUATORS, `holistic judge failed: ${error.message}`);
  }
}

/** The design metrics of a deck, measured once per deck file and cached across runs. */
async function designRows(scoring: DeckScoring): Promise<void> {
  const { deckFile } = scoring.deck;
  if (!scoring.families.has('design'))
    return scoring.nulls(DESIGN_EVALUATORS, scoring.notRequested('design'));
  try {
    const design = await cachedDeckDesign(deckFile);
    for (const metric of DESIGN_METRICS)
      scoring.push(`design.${metric}`, design.deck[metric], 'no text element with a box on any slide');
  } catch (error) {
    if (!isXsbError(error)) throw error;
    scoring.failures.push({ where: deckFile, error: `design: ${error.message}` });
    scoring.nulls(DESIGN_EVALUATORS, `design metrics failed: ${error.message}`);
  }
}

/** Every deck of the derived run by every evaluator family; a value that does not apply is null with its reason, never 0. */
export async function scoreDerivedDecks(
  derived: DerivedRun,
  options: ScoreDecksOptions,
): Promise<ScoredDecks> {
  const rows: MetaScoreRow[] = [];
  const failures: ScoredDecks['failures'] = [];
  const families = new Set<EvaluatorFamily>(options.families ?? DEFAULT_EVALUATOR_FAMILIES);
  const notRequested = (family: EvaluatorFamily) =>
    `not requested (evaluators: ${[...families].join(', ')}; ${family} left out)`;
  const jobsByDeck = jobsByDeckOf(await evaluateDerivedRun(derived, options, families), failures);
  const materials: Materials = new Map();
  for (const deck of derived.decks) {
    const base = {
      deck: deck.deck,
      original_sha256: deck.originalSha256,
      variant: deck.variant,
      kind: deck.record?.kind ?? null,
      severity: deck.record?.severity ?? null,
      judge: options.judge,
    };
    const push = (evaluator: string, value: number | null, reason?: string) =>
      rows.push({
        ...base,
        evaluator,
        value: value === null || Number.isFinite(value) ? value : null,
        ...(value === null && reason ? { reason } : {}),
      });
    const nulls = (evaluators: readonly string[], reason: string) => {
      for (const evaluator of evaluators) push(evaluator, null, reason);
    };
    const scoring: DeckScoring = { deck, options, families, failures, push, nulls, notRequested };
    const jobs = jobsByDeck.get(
      `${deck.variantSystem}/${deck.condition}/${deck.deckAudience}/${deck.caseLabel}`,
    );
    await xslidesRows(scoring, jobs ?? []);
    await designRows(scoring);
    let parsed: Deck;
    try {
      parsed = await readDeck(deck.deckFile);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      failures.push({ where: deck.deckFile, error: error.message });
      nulls(
        [...RUBRIC_EVALUATORS, ...LAYOUT_EVALUATORS, ...HOLISTIC_EVALUATORS],
        `the deck cannot be read: ${error.message}`,
      );
      continue;
    }
    const instance = options.instances.get(deck.caseLabel);
    await rubricRows(scoring, parsed, instance, materials);
    layoutRows(scoring, parsed, instance);
    await holisticRows(scoring, parsed);
  }
  return { rows, failures };
}
