export {
  boxedCaptures,
  DEFAULT_PARSER,
  defaultMaxAttempts,
  extractBoxed,
  type LenientAnswer,
  normalizeBoxedToken,
  pythonStrip,
  readLenientVerdict,
  readStrictVerdict,
  type StrictReading,
  verdictOfStoredAnswer,
} from './boxed-verdict';
export {
  type ItemJudgement,
  type JudgeItemOptions,
  judgeChecklistItem,
  type MaterialText,
} from './checklist-item-judge';
export { decodePresentBenchItem, PRESENTBENCH_CALLABLES } from './decode-presentbench-item';
export {
  cachedInputShare,
  countPlannedItems,
  type EvaluateDeckOptions,
  evaluateDeck,
  type StandInMode,
} from './evaluate-deck';
export {
  evaluateRepeats,
  type RubricRepeatResult,
  repeatEvaluationFile,
  retestFileFor,
} from './evaluate-repeats';
export {
  type HolisticAnswer,
  type HolisticRunRow,
  type HolisticScore,
  type HolisticUnit,
  holisticWorkList,
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
export { rubricSummaryCombiner } from './merge-rubric-summaries';
export {
  dumpScoreTreeYaml,
  isPresentBenchResultsDeck,
  modelFilenamePrefix,
  PRESENTBENCH_TIMESTAMP,
  type PresentBenchFiles,
  type PresentBenchTarget,
  presentBenchModelName,
  presentBenchTimestamp,
  scoreFileFor,
  type WritePresentBenchOptions,
  writePresentBenchFiles,
} from './presentbench-files';
export {
  type ErrorExport,
  isResultAnswered,
  itemsFromPresentBenchResult,
  NOT_JUDGED_LOG,
  type PresentBenchItem,
  readPresentBenchResult,
  storedAnswerOf,
  stringifyPresentBenchResult,
  toPresentBenchResult,
} from './presentbench-result';
export {
  type PresentBenchClassTree,
  type PresentBenchCountingRule,
  type PresentBenchResult,
  type PresentBenchScoreTree,
  type PresentBenchScoringOptions,
  type PresentBenchSectionTree,
  type PresentBenchWeights,
  scorePresentBenchResult,
  type UnansweredPolicy,
} from './presentbench-scoring';
export { type PyValue, readPythonYaml } from './python-values';
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
  evaluationInputHash,
  RUBRIC_ITEM_STAGE,
  type RubricItemListOptions,
  type RubricItemUnit,
  rubricItemWorkList,
} from './rubric-item-work-list';
export {
  BATCH_INSTANCE_CONCURRENCY,
  type EvaluateOrReuseResult,
  type EvaluationFiles,
  evaluateOrReuse,
  evaluationFilesFor,
  findInstances,
  type InstanceEntry,
  matchingStoredEvaluation,
  type RunRubricOptions,
  rubricSummaryFileFor,
  runRubric,
  summarizeRubricRun,
} from './run-rubric';
export {
  type DimensionScore,
  describeDimensionScore,
  dimensionCounts,
  type ErrorPolicy,
  meansByCategory,
  type PaperScore,
  scorePaper,
  shownDimensionScore,
  shownPaperTotal,
} from './score-evaluation';
export {
  classHasNoItems,
  type PresentBenchClassSummary,
  type PresentBenchSummary,
  type ScoreOptions,
  type ScoreReport,
  scoreEvaluation,
  scorePresentBenchVerdicts,
  summarisePresentBench,
} from './score-report';
export { dominantScript, KNOWN_LANGUAGES, type Script, scriptOfLanguage } from './script-detection';
export { type SlideContentCount, slideContentItems } from './slide-content-items';
export {
  type BootstrapInterval,
  spearman,
} from './spearman';
export { type StandIn, standInCheckFor } from './stand-in-checks';
