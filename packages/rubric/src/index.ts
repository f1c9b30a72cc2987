export {
  addUsage,
  buildChecklistRequest,
  buildSharedPrefix,
  citedSlides,
  extractBoxed,
  type ItemJudgement,
  judgeChecklistItem,
  type MaterialText,
  normaliseBoxedAnswer,
  type ParsedAnswer,
  parseVerdict,
  RETRY_INSTRUCTION,
  renderDeckForJudge,
  renderMaterialForJudge,
} from './checklist-item-judge';
export { decodePresentBenchItem, PRESENTBENCH_CALLABLES } from './decode-presentbench-item';
export {
  cachedInputShare,
  type EvaluateDeckOptions,
  evaluateDeck,
  evaluationInputHash,
  planItems,
  type StandInMode,
} from './evaluate-deck';
export {
  buildHolisticRequest,
  HOLISTIC_SYSTEM_PROMPT,
  type HolisticAnswer,
  type HolisticRunRow,
  type HolisticScore,
  holisticAnswerSchema,
  judgeHolistic,
  parseHolisticAnswer,
  runHolistic,
} from './holistic-judge';
export {
  type AlignmentResult,
  alignWithHumans,
  formatScoresCsv,
  type HumanRanking,
  humanAgreement,
  parseCsv,
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
  countSlideBullets,
  DEFAULT_LAYOUT_CHECK_OPTIONS,
  flattenElements,
  LAYOUT_CHECK_IDS,
  type LayoutCheckId,
  type LayoutCheckOptions,
  overlapShare,
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
  scorePresentBenchSection,
} from './presentbench-scoring';
export { detectInstructionLanguage, detectSourceAttributionRequirement } from './read-instruction';
export { readMaterials } from './read-materials';
export {
  countInstanceItems,
  DIMENSION_CLASSES,
  EQUAL_CLASS_WEIGHTS,
  expandFidelityTemplate,
  loadRubricInstance,
  type RubricInstance,
} from './rubric-instance';
export {
  type EvaluationFiles,
  evaluateOrReuse,
  evaluationFilesFor,
  findInstances,
  type InstanceEntry,
  judgeSlug,
  type RunRubricOptions,
  runRubric,
  writeEvaluation,
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
export { countScripts, dominantScript, type Script, scriptOfLanguage } from './script-detection';
export {
  averageRanks,
  type BootstrapInterval,
  bootstrapMeanInterval,
  spearman,
} from './spearman';
export { type StandIn, standInCheckFor } from './stand-in-checks';
