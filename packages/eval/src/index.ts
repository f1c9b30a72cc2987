export { aggregateCorrectness } from './aggregate-correctness';
export { aggregateRun } from './aggregate-run';
export {
  ANSWERABILITY_SYSTEM,
  answerabilityAnswerSchema,
  buildAnswerabilityRequest,
  reconcileJudgments,
} from './answerability-prompt';
export {
  buildClaimExtractionRequest,
  CLAIM_EXTRACTION_SYSTEM,
  claimExtractionAnswerSchema,
  claimsFromExtraction,
} from './claim-extraction-prompt';
export {
  buildClaimVerificationRequest,
  CLAIM_VERIFICATION_SYSTEM,
  claimVerificationAnswerSchema,
  reconcileVerdicts,
} from './claim-verification-prompt';
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
  LexicalEvalJudge,
  LlmEvalJudge,
} from './eval-judge';
export {
  evaluateJob,
  isJobCurrent,
  type JobResult,
  PARTIAL_SCORES_FILE,
  type RenderSlides,
  readJobInputs,
  scoreReuseKeyOf,
} from './evaluate-job';
export { repeatFiles } from './evaluate-job-repeat';
export {
  type AnswerabilityUnit,
  type ClaimExtractionUnit,
  claimExtractionUnit,
  EVAL_OUTPUT_TOKENS,
  imageInputRefusal,
  judgeInputModeFor,
  type VerificationUnit,
  verificationItems,
  verificationUnits,
} from './evaluation-work-list';
export { extractClaimsLexically } from './extract-claims-lexically';
export { findMissingEvaluationJobs } from './find-missing-evaluation-jobs';
export { type JudgeInputMode, probeForJudge } from './probe-judgment';
export { renderSlidesWithDecks } from './render-slides-with-decks';
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
export { correctnessCacheKey, DEFAULT_CLAIM_SETTINGS, scoreDeckCorrectness } from './score-deck-correctness';
export { readAnswerabilityWork, type ScoreReuseKey, scoreProbesInBatches } from './score-probes-in-batches';
export { SourceRetriever } from './source-retriever';
