export {
  extractBoxed,
  type ItemJudgement,
  judgeChecklistItem,
  type MaterialText,
  type ParsedAnswer,
  parseVerdict,
} from './checklist-item-judge';
export { decodePresentBenchItem, PRESENTBENCH_CALLABLES } from './decode-presentbench-item';
export {
  cachedInputShare,
  type EvaluateDeckOptions,
  evaluateDeck,
  type StandInMode,
} from './evaluate-deck';
export {
  type HolisticAnswer,
  type HolisticRunRow,
  type HolisticScore,
  judgeHolistic,
  runHolistic,
} from './holistic-judge';
export {
  type AlignmentResult,
  alignWithHumans,
  formatScoresCsv,
  type HumanRanking,
  humanAgreement,
  readHumanRankings,
  readSystemScores,
  type SystemScore,
  scoresFromRunSummaries,
} from './human-alignment';
export {
  checkBulletsPerSlide,
  checkEmptySlides,
  checkLanguage,
  checkMinFontSize,
  checkOffSlide,
  checkSlideCount,
  checkSourceAttribution,
  checkTextOverlap,
  DEFAULT_LAYOUT_CHECK_OPTIONS,
  LAYOUT_CHECK_IDS,
  type LayoutCheckId,
  type LayoutCheckOptions,
  runLayoutChecks,
} from './layout-checks';
export { loadInstanceAt } from './load-instance-at';
export {
  findMaterialFiles,
  findPresentBenchCases,
  findPresentBenchDeck,
  loadPresentBenchCase,
  readPresentBenchWeights,
} from './load-presentbench-case';
export {
  itemsFromPresentBenchResult,
  type PresentBenchItem,
  readPresentBenchResult,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
export {
  type PresentBenchClassInfo,
  type PresentBenchCountingRule,
  type PresentBenchResult,
  type PresentBenchScoreTree,
  type PresentBenchWeights,
  scorePresentBenchResult,
} from './presentbench-scoring';
export { detectInstructionLanguage, detectSourceAttributionRequirement } from './read-instruction';
export { readMaterials } from './read-materials';
export {
  countInstanceItems,
  DIMENSION_CLASSES,
  EQUAL_CLASS_WEIGHTS,
  loadRubricInstance,
  type RubricInstance,
} from './rubric-instance';
export {
  type EvaluationFiles,
  evaluateOrReuse,
  evaluationFilesFor,
  findInstances,
  type InstanceEntry,
  type RunRubricOptions,
  runRubric,
} from './run-rubric';
export {
  type DimensionScore,
  type ErrorPolicy,
  meansByCategory,
  type PaperScore,
  scorePaper,
} from './score-evaluation';
export {
  type PresentBenchSummary,
  type ScoreOptions,
  type ScoreReport,
  scoreEvaluation,
  scorePresentBenchVerdicts,
  summarisePresentBench,
} from './score-report';
export { dominantScript, type Script, scriptOfLanguage } from './script-detection';
export {
  type BootstrapInterval,
  spearman,
} from './spearman';
export { type StandIn, standInCheckFor } from './stand-in-checks';
