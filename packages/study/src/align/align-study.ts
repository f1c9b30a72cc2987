import { join } from 'node:path';
import { readJson, UsageError, writeFileAtomic, writeJson } from '@xsb/core';
import type { Judge } from '@xsb/llm';
import { RUBRIC_DIMENSIONS, type RubricInstance } from '@xsb/rubric';
import { STUDY_FILES } from '../create/study-files';
import { readStudy, readStudyAnnotations } from '../import-annotations';
import { caseRankingsOf } from '../read-annotations';
import { type AlignRecord, alignRecordSchema } from '../schemas/align-record';
import { studyKeySchema } from '../schemas/study-record';
import { alignEvaluator } from './align-evaluator';
import { annotatorConcordance, humanCeiling } from './annotator-agreement';
import { compareAlignments } from './compare-alignments';
import { dimensionAblation } from './dimension-ablation';
import { renderAlignReport } from './render-align-report';
import { studyEvaluatorScores } from './study-evaluator-scores';

export interface AlignStudyOptions {
  /** The study folder. */
  dir: string;
  dataDir: string;
  /** The run the study was made from (checked against key.json). */
  run: string;
  instances: ReadonlyMap<string, RubricInstance>;
  rubricJudge: Judge;
  seed?: number;
  resamples?: number;
}

/**
 * `xsb study align`: every evaluator with scores for the study's decks measured against the annotators'
 * rankings (PresentBench's mean Spearman ρ with a bootstrap interval over cases), the human ceiling, Kendall's W,
 * the rubric's dimension ablation and the most aligned evaluator paired against each other one. Writes
 * `align.json` and `align.md` into the study folder.
 */
export async function alignStudy(
  options: AlignStudyOptions,
): Promise<{ record: AlignRecord; report: string }> {
  const study = await readStudy(options.dir);
  const key = await readJson(join(options.dir, STUDY_FILES.key), studyKeySchema);
  if (key.data_run !== options.run)
    throw new UsageError(`the study was made from run "${key.data_run}", not "${options.run}"`);
  const answers = await readStudyAnnotations(options.dir, study);
  if (answers.length === 0)
    throw new UsageError(
      `no answers in ${join(options.dir, STUDY_FILES.annotations)}: import the annotators' files first`,
      {
        code: 'missing_file',
      },
    );
  const cases = caseRankingsOf(study, answers).filter((c) => c.rankings.size > 0);
  const bootstrap = {
    seed: options.seed ?? 20_240_607,
    resamples: options.resamples ?? 2000,
    confidence: 0.95,
  };
  const scored = await studyEvaluatorScores({
    dataDir: options.dataDir,
    study,
    key,
    instances: options.instances,
    rubricJudge: options.rubricJudge,
  });
  const rows = [...scored.scores.keys()].map((evaluator) => ({
    evaluator,
    alignment: alignEvaluator(evaluator, scored.scores.get(evaluator)!, cases, bootstrap),
  }));
  const evaluators = rows
    .filter(({ alignment }) => alignment.n_cases > 0)
    .map(({ evaluator, alignment }) => {
      const source = scored.sources.get(evaluator)!;
      return {
        evaluator,
        family: source.family,
        judge: source.judge,
        offline: source.offline,
        spearman: alignment.spearman,
        ci_low: alignment.ci_low,
        ci_high: alignment.ci_high,
        n_cases: alignment.n_cases,
        constant_cases: alignment.constant_cases,
      };
    });
  const aligned = rows.filter(({ alignment }) => alignment.n_cases > 0 && alignment.spearman !== null);
  const best = [...aligned].sort((x, y) => y.alignment.spearman! - x.alignment.spearman!)[0];
  const ceiling = humanCeiling(cases, bootstrap);
  const w = annotatorConcordance(cases, bootstrap);
  const record: AlignRecord = {
    study: study.study,
    data_run: key.data_run,
    annotators: answers.map((a) => a.annotator),
    answered_cases: cases.length,
    bootstrap,
    evaluators,
    human_ceiling: {
      spearman: ceiling.value,
      ci_low: ceiling.ci_low,
      ci_high: ceiling.ci_high,
      n_cases: ceiling.n_cases,
    },
    kendall_w: { w: w.value, ci_low: w.ci_low, ci_high: w.ci_high, n_cases: w.n_cases },
    ablation:
      scored.dimensions.size === 0
        ? []
        : dimensionAblation(scored.dimensions, RUBRIC_DIMENSIONS, cases, bootstrap).map((row) => ({
            dimensions: row.dimensions,
            spearman: row.spearman,
            ci_low: row.ci_low,
            ci_high: row.ci_high,
            n_cases: row.n_cases,
          })),
    comparisons: best
      ? aligned
          .filter((row) => row !== best)
          .map((row) => compareAlignments(row.alignment, best.alignment, bootstrap))
      : [],
    problems: scored.problems,
  };
  await writeJson(join(options.dir, STUDY_FILES.align), alignRecordSchema, record);
  const report = renderAlignReport(record);
  await writeFileAtomic(join(options.dir, STUDY_FILES.alignReport), report);
  return { record, report };
}
