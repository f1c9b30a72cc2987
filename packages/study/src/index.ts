export { alignEvaluator, caseSpearman, type EvaluatorAlignment } from './align/align-evaluator';
export { type AlignStudyOptions, alignStudy } from './align/align-study';
export { annotatorConcordance, type CaseMean, humanCeiling } from './align/annotator-agreement';
export type { AlignBootstrap, CaseRankings, CaseScores } from './align/case-rankings';
export { type AlignmentComparison, compareAlignments } from './align/compare-alignments';
export {
  type AblationRow,
  type CaseDimensionScores,
  dimensionAblation,
  dimensionSubsets,
} from './align/dimension-ablation';
export { renderAlignReport } from './align/render-align-report';
export { type CreatedStudy, type CreateStudyOptions, createStudy, STUDY_TASK } from './create/create-study';
export { sampleCases, seededShuffle } from './create/sample-cases';
export { STUDY_FILES } from './create/study-files';
export { renderStudyPage } from './create/study-page';
export { importAnnotations, readStudy, readStudyAnnotations } from './import-annotations';
export { type PlanRankOptions, planRank } from './rank/plan-rank';
export { type RankSelection, rankGroups } from './rank/rank-groups';
export {
  buildPairRequest,
  buildRankRequest,
  PAIRWISE_STAGE,
  PAIRWISE_SYSTEM_PROMPT,
  parsePairAnswer,
  parseRankAnswer,
  RANK_STAGE,
  RANK_SYSTEM_PROMPT,
} from './rank/rank-prompt';
export { type RankGroup, type RankMode, rankWorkList } from './rank/rank-work-list';
export { type RankResult, type RunRankOptions, rankDir, runRank } from './rank/run-rank';
export {
  type AnnotatorAnswers,
  annotatorOf,
  caseRankingsOf,
  parseAnnotations,
  readAnnotations,
} from './read-annotations';
export { type AlignRecord, alignRecordSchema } from './schemas/align-record';
export { type AnnotationLine, annotationLineSchema } from './schemas/annotation-line';
export {
  type RankPairwiseSummary,
  type RankRecord,
  rankPairwiseSummarySchema,
  rankRecordSchema,
} from './schemas/rank-record';
export {
  type StudyCase,
  type StudyKey,
  type StudyRecord,
  studyCaseSchema,
  studyKeySchema,
  studyRecordSchema,
} from './schemas/study-record';
export { type StudyServer, startStudyServer } from './serve/start-study-server';
