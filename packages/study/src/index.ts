export { alignEvaluator, caseSpearman, type EvaluatorAlignment } from './align/align-evaluator';
export { annotatorConcordance, type CaseMean, humanCeiling } from './align/annotator-agreement';
export type { AlignBootstrap, CaseRankings, CaseScores } from './align/case-rankings';
export { type AlignmentComparison, compareAlignments } from './align/compare-alignments';
export {
  type AblationRow,
  type CaseDimensionScores,
  dimensionAblation,
  dimensionSubsets,
} from './align/dimension-ablation';
export { type AnnotatorAnswers, annotatorOf, caseRankingsOf, readAnnotations } from './read-annotations';
export { type AnnotationLine, annotationLineSchema } from './schemas/annotation-line';
export {
  type StudyCase,
  type StudyKey,
  type StudyRecord,
  studyCaseSchema,
  studyKeySchema,
  studyRecordSchema,
} from './schemas/study-record';
