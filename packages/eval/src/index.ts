export { aggregateRun } from './aggregate-run';
export { ANSWERABILITY_SYSTEM, buildAnswerabilityRequest } from './answerability-prompt';
export { CLAIM_EXTRACTION_SYSTEM } from './claim-extraction-prompt';
export { CLAIM_VERIFICATION_SYSTEM } from './claim-verification-prompt';
export { countLedgerLines } from './count-ledger-lines';
export {
  type DiscoveryFailure,
  discoverDeckRows,
  type EvaluationJob,
  evaluationDirOf,
  expandEvaluationJobs,
  type JobFilters,
} from './discover-evaluation-jobs';
export {
  createEvalJudge,
  EVAL_STAGES,
  type EvalJudge,
  evalJudgeCapabilities,
  evalJudgeFrom,
} from './eval-judge';
export { type DeckEvaluation, type EvaluateDeckInput, evaluateDeck } from './evaluate-deck';
export {
  isJobCurrent,
  type JobResult,
  PARTIAL_SCORES_FILE,
  type RenderSlides,
  readJobInputs,
  scoreReuseKeyOf,
} from './evaluate-job';
export { repeatFiles } from './evaluate-job-repeat';
export {
  claimExtractionUnit,
  EVAL_OUTPUT_TOKENS,
  imageInputRefusal,
  judgeInputModeFor,
  verificationItems,
  verificationUnits,
} from './evaluation-work-list';
export { extractClaimsLexically } from './extract-claims-lexically';
export { findMissingEvaluationJobs } from './find-missing-evaluation-jobs';
export { contentTokens } from './lexical-tokens';
export type { JudgeInputMode } from './probe-judgment';
export {
  DEMO_IMPORTED_SYSTEM,
  DEMO_RUN,
  defaultFixturesDir,
  demoSheetRows,
  type RunDemoResult,
  runDemo,
} from './run-demo';
export {
  DEFAULT_BATCH_SIZE,
  DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE,
  type EvaluationRunResult,
  evaluationSettingsFor,
  type RunEvaluationOptions,
  runClientOptions,
  runEvaluation,
  selectEvaluationJobs,
} from './run-evaluation';
export { correctnessCacheKey, DEFAULT_CLAIM_SETTINGS } from './score-deck-correctness';
export { readAnswerabilityWork } from './score-probes-in-batches';
