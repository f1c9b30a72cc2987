export { cachedHolisticScores, type HolisticScores } from './cached-holistic-score';
export {
  cachedInputShare,
  type EvaluateDeckOptions,
  evaluateDeck,
  type StandInMode,
} from './evaluate-deck';
export { evaluateRepeats, type RubricRepeatResult, retestFileFor } from './evaluate-repeats';
export { holisticWorkList, judgeHolistic, runHolistic } from './holistic-judge';
export {
  alignWithHumans,
  formatScoresCsv,
  humanAgreement,
  readHumanRankings,
  readSystemScores,
  scoresFromRunSummaries,
} from './human-alignment';
export { LAYOUT_CHECK_IDS, layoutCheckScore, runLayoutChecks } from './layout-checks';
export { loadInstanceAt } from './load-instance-at';
export { findPresentBenchDeck, readPresentBenchWeights } from './load-presentbench-case';
export { rubricSummaryCombiner } from './merge-rubric-summaries';
export { type DeckPaperScores, paperScoresForDeck } from './paper-scores-for-deck';
export {
  PRESENTBENCH_TIMESTAMP,
  type PresentBenchTarget,
  presentBenchModelName,
  writePresentBenchFiles,
} from './presentbench-files';
export {
  type ErrorExport,
  itemsFromPresentBenchResult,
  readPresentBenchResult,
} from './presentbench-result';
export type { PresentBenchCountingRule } from './presentbench-scoring';
export { readPythonYaml } from './python-values';
export { readMaterials } from './read-materials';
export { loadRubricInstance, type RubricInstance } from './rubric-instance';
export {
  evaluationInputHash,
  RUBRIC_ITEM_OUTPUT_TOKENS,
  RUBRIC_ITEM_STAGE,
  rubricItemWorkList,
} from './rubric-item-work-list';
export {
  BATCH_INSTANCE_CONCURRENCY,
  deckItemWorkList,
  evaluateOrReuse,
  evaluationFilesFor,
  findInstances,
  type InstanceEntry,
  judgeSlug,
  loadInstancesById,
  runRubric,
} from './run-rubric';
export {
  type LayoutCheckResult,
  RUBRIC_PARSERS,
  RUBRIC_VERDICTS,
  type RubricEvaluation,
  type RubricItemResult,
  type RubricParser,
  type RubricRunRow,
  type RubricRunSummary,
  type RubricVerdict,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
} from './schemas/rubric-evaluation';
export {
  RUBRIC_DIMENSIONS,
  type RubricClassWeights,
  rubricClassWeightsSchema,
  rubricInstanceFileSchema,
} from './schemas/rubric-instance';
export { presentBenchResultFileSchema, presentBenchScoreFileSchema } from './schemas/rubric-presentbench';
export {
  type DimensionScore,
  describeDimensionScore,
  dimensionCounts,
  type ErrorPolicy,
  type PaperScore,
  scorePaper,
  shownDimensionScore,
  shownPaperTotal,
} from './score-evaluation';
export {
  classHasNoItems,
  type ScoreReport,
  scoreEvaluation,
  scorePresentBenchVerdicts,
} from './score-report';
export { KNOWN_LANGUAGES } from './script-detection';
