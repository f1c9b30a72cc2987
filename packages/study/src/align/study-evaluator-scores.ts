import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { type Deck, isXsbError, metricsSchema, RunLayout, readJson } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { DESIGN_FILE, DESIGN_METRICS, designRecordSchema } from '@xsb/design';
import { discoverDeckRows } from '@xsb/eval';
import type { Judge } from '@xsb/llm';
import { EVALUATION_FILES, SUMMARY_METRICS } from '@xsb/metrics';
import {
  cachedHolisticScores,
  LAYOUT_CHECK_IDS,
  layoutCheckScore,
  paperScoresForDeck,
  RUBRIC_DIMENSIONS,
  type RubricInstance,
  runLayoutChecks,
} from '@xsb/rubric';
import { type RankRecord, rankRecordSchema } from '../schemas/rank-record';
import type { StudyKey, StudyRecord } from '../schemas/study-record';

/** Per evaluator, per case, label → score (higher = better, or a design metric's own scale). */
export type StudyScores = Map<string, Map<string, Map<string, number>>>;

/** How each evaluator's scores came about: its family, its judge, and whether that judge is offline. */
export interface EvaluatorSource {
  family: 'xslides' | 'rubric' | 'layout' | 'design' | 'rank' | 'holistic';
  judge: string | null;
  offline: boolean;
}

export interface StudyEvaluatorScores {
  scores: StudyScores;
  /** Per case, label → the rubric's five dimension scores (for the ablation). */
  dimensions: Map<string, Map<string, Record<string, number | null>>>;
  sources: Map<string, EvaluatorSource>;
  /** Decks or files that could not be read, each with why: their scores are missing, the rest stands. */
  problems: string[];
}

export interface ScoreStudyOptions {
  dataDir: string;
  study: StudyRecord;
  key: StudyKey;
  /** Rubric instances by case label (`id` = the case): the rubric's evaluators. */
  instances: ReadonlyMap<string, RubricInstance>;
  /**
   * The judge of the rubric (its evaluations are reused from beside each deck) and, when it is a model, of the
   * holistic PPTEval-style baseline (`holistic.<aspect>`, also cached beside each deck).
   */
  rubricJudge: Judge;
}

function put(
  target: StudyScores,
  evaluator: string,
  caseId: string,
  label: string,
  value: number | null | undefined,
) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return;
  const byCase = target.get(evaluator) ?? new Map<string, Map<string, number>>();
  const byLabel = byCase.get(caseId) ?? new Map<string, number>();
  byLabel.set(label, value);
  byCase.set(caseId, byLabel);
  target.set(evaluator, byCase);
}

/**
 * Every evaluator xsb has for the study's decks, read from the run (no new judge call but the rubric's, which
 * reuses its stored evaluations): X+Slides metrics of the case's study audience (`xslides.<metric>`, from each
 * evaluation folder's metrics.json), the design metrics where `xsb design` ran (`design.<metric>`), the layout
 * checks (`layout.<check>`, share of slides without a finding) and, for cases with a rubric instance, the
 * rubric's total and dimensions (`rubric.total`, `rubric.<dimension>`), and the ranking judge where `xsb rank` ran
 * (`rank.listwise[<judge>]`: mean Borda points; `rank.pairwise[<judge>]`: share of pairs won); with a model judge,
 * the holistic baseline (`holistic.overall`, `holistic.content`, `holistic.design`, `holistic.coherence`).
 */
export async function studyEvaluatorScores(options: ScoreStudyOptions): Promise<StudyEvaluatorScores> {
  const { study, key } = options;
  const layout = new RunLayout(options.dataDir);
  const { rows } = await discoverDeckRows(layout, key.data_run);
  const result: StudyEvaluatorScores = {
    scores: new Map(),
    dimensions: new Map(),
    sources: new Map(),
    problems: [],
  };
  const rankRecords = await readRankRecords(join(layout.runDir(key.data_run), 'rank'), result.problems);
  const source = (evaluator: string, value: EvaluatorSource) => {
    if (!result.sources.has(evaluator)) result.sources.set(evaluator, value);
  };
  for (const studyCase of study.cases) {
    for (const deck of studyCase.decks) {
      const system = key.cases[studyCase.case]?.[deck.label];
      if (!system) {
        result.problems.push(`key.json names no system for ${studyCase.case} deck ${deck.label}`);
        continue;
      }
      const [generator, condition] = system.split('__') as [string, string];
      const row = rows.find(
        (r) =>
          r.caseLabel === studyCase.case &&
          r.system === generator &&
          r.condition === condition &&
          (condition === 'audience_agnostic' || r.deckAudience === studyCase.audience),
      );
      if (!row) {
        result.problems.push(
          `${studyCase.case} deck ${deck.label}: no deck of ${system} in run "${key.data_run}"`,
        );
        continue;
      }
      const where = { case: studyCase.case, label: deck.label };
      const dir = layout.evaluationDir({
        run: key.data_run,
        system: generator,
        condition,
        audience: studyCase.audience,
        caseLabel: studyCase.case,
      });
      await readEvaluationScores(result, dir, where, source);
      await readRankScores(result, rankRecords, { ...where, audience: studyCase.audience, system }, source);
      let parsed: Deck;
      try {
        parsed = await readDeck(row.deckFile);
      } catch (error) {
        if (!isXsbError(error)) throw error;
        result.problems.push(`${studyCase.case} deck ${deck.label}: ${error.message}`);
        continue;
      }
      const instance = options.instances.get(studyCase.case);
      scoreLayout(result, parsed, instance, where, source);
      if (instance) await scoreRubric(result, options.rubricJudge, instance, row.deckFile, where, source);
      if (options.rubricJudge.client)
        await scoreHolistic(result, options.rubricJudge, parsed, row.deckFile, where, source);
    }
  }
  return result;
}

type Where = { case: string; label: string };

/** Every rank file of the run (`rank/<judge>/<mode>/<audience>/<case>.json`), keyed by audience and case. */
async function readRankRecords(root: string, problems: string[]): Promise<Map<string, RankRecord[]>> {
  const records = new Map<string, RankRecord[]>();
  if (!existsSync(root)) return records;
  const files = (await readdir(root, { recursive: true }))
    .map(String)
    .filter((name) => name.split(sep).length === 4);
  for (const name of files.filter((file) => file.endsWith('.json')).sort()) {
    try {
      const record = await readJson(join(root, name), rankRecordSchema);
      const key = `${record.audience}\u0000${record.case}`;
      records.set(key, [...(records.get(key) ?? []), record]);
    } catch (error) {
      if (!isXsbError(error)) throw error;
      problems.push(`rank: ${error.message}`);
    }
  }
  return records;
}

/** The ranking judge's score of the deck's system in its case and audience, per judge and mode. */
async function readRankScores(
  result: StudyEvaluatorScores,
  records: Map<string, RankRecord[]>,
  where: Where & { audience: string; system: string },
  source: Source,
): Promise<void> {
  for (const record of records.get(`${where.audience}\u0000${where.case}`) ?? []) {
    const evaluator = `rank.${record.mode}[${record.judge}]`;
    put(result.scores, evaluator, where.case, where.label, record.scores[where.system]);
    source(evaluator, { family: 'rank', judge: record.judge, offline: record.judge === 'lexical' });
  }
}
type Source = (evaluator: string, value: EvaluatorSource) => void;

async function readEvaluationScores(
  result: StudyEvaluatorScores,
  dir: string,
  where: Where,
  source: Source,
): Promise<void> {
  try {
    const metricsFile = join(dir, EVALUATION_FILES.metrics);
    if (existsSync(metricsFile)) {
      const metrics = await readJson(metricsFile, metricsSchema);
      const judge = metrics.judges?.find((j) => j.stage === 'answerability') ?? metrics.judges?.[0];
      for (const metric of SUMMARY_METRICS) {
        put(
          result.scores,
          `xslides.${metric}`,
          where.case,
          where.label,
          (metrics as Record<string, unknown>)[metric] as number,
        );
        source(`xslides.${metric}`, {
          family: 'xslides',
          judge: judge?.id ?? null,
          offline: metrics.judges?.some((j) => j.kind === 'offline') ?? false,
        });
      }
    }
    const designFile = join(dir, DESIGN_FILE);
    if (existsSync(designFile)) {
      const design = await readJson(designFile, designRecordSchema);
      for (const metric of DESIGN_METRICS) {
        put(result.scores, `design.${metric}`, where.case, where.label, design.deck[metric]);
        source(`design.${metric}`, { family: 'design', judge: null, offline: false });
      }
    }
  } catch (error) {
    if (!isXsbError(error)) throw error;
    result.problems.push(`${where.case} deck ${where.label}: ${error.message}`);
  }
}

function scoreLayout(
  result: StudyEvaluatorScores,
  deck: Deck,
  instance: RubricInstance | undefined,
  where: Where,
  source: Source,
): void {
  const checks = runLayoutChecks(deck, {
    ...(instance ? { slideRange: instance.slideRange, language: instance.language } : {}),
    requireSourceAttribution: true,
  });
  for (const id of LAYOUT_CHECK_IDS) {
    const check = checks.find((item) => item.id === id);
    put(
      result.scores,
      `layout.${id}`,
      where.case,
      where.label,
      check ? layoutCheckScore(check, deck.slide_count) : null,
    );
    source(`layout.${id}`, { family: 'layout', judge: null, offline: false });
  }
}

/** The PPTEval-style holistic baseline (a model judge only; its scores are cached beside the deck). */
async function scoreHolistic(
  result: StudyEvaluatorScores,
  judge: Judge,
  deck: Deck,
  deckFile: string,
  where: Where,
  source: Source,
): Promise<void> {
  try {
    const scores = await cachedHolisticScores(deckFile, deck, judge.id, judge.client!);
    for (const aspect of ['overall', 'content', 'design', 'coherence'] as const) {
      put(result.scores, `holistic.${aspect}`, where.case, where.label, scores[aspect]);
      source(`holistic.${aspect}`, { family: 'holistic', judge: judge.id, offline: false });
    }
  } catch (error) {
    if (!isXsbError(error)) throw error;
    result.problems.push(`${where.case} deck ${where.label}: holistic: ${error.message}`);
  }
}

async function scoreRubric(
  result: StudyEvaluatorScores,
  judge: Judge,
  instance: RubricInstance,
  deckFile: string,
  where: Where,
  source: Source,
): Promise<void> {
  try {
    const paper = await paperScoresForDeck(instance, deckFile, judge);
    const rubricSource = { family: 'rubric' as const, judge: judge.id, offline: judge.kind === 'offline' };
    put(result.scores, 'rubric.total', where.case, where.label, paper.total);
    source('rubric.total', rubricSource);
    for (const dimension of RUBRIC_DIMENSIONS) {
      put(result.scores, `rubric.${dimension}`, where.case, where.label, paper.dimensions[dimension]);
      source(`rubric.${dimension}`, rubricSource);
    }
    const byLabel = result.dimensions.get(where.case) ?? new Map<string, Record<string, number | null>>();
    byLabel.set(where.label, paper.dimensions);
    result.dimensions.set(where.case, byLabel);
  } catch (error) {
    if (!isXsbError(error)) throw error;
    result.problems.push(`${where.case} deck ${where.label}: rubric: ${error.message}`);
  }
}
