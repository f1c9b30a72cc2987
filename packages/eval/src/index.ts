export { aggregateCorrectness, CONTRADICTION_PENALTY, CORRECTNESS_FORMULA } from './aggregate-correctness';
export { type AggregateRunOptions, aggregateRun } from './aggregate-run';
export {
  ANSWERABILITY_PROMPT_VERSION,
  ANSWERABILITY_SYSTEM,
  type AnswerabilityAnswer,
  type AnswerabilityPromptInput,
  answerabilityAnswerSchema,
  buildAnswerabilityRequest,
  reconcileJudgments,
} from './answerability-prompt';
export {
  buildClaimExtractionRequest,
  CLAIM_EXTRACTION_SYSTEM,
  type ClaimExtractionAnswer,
  claimExtractionAnswerSchema,
  claimsFromExtraction,
} from './claim-extraction-prompt';
export {
  buildClaimVerificationRequest,
  CLAIM_VERIFICATION_SYSTEM,
  type ClaimVerificationAnswer,
  claimVerificationAnswerSchema,
  reconcileVerdicts,
} from './claim-verification-prompt';
export { countLedgerLines } from './count-ledger-lines';
export {
  type DeckRow,
  type DiscoveryFailure,
  deckFolderIdentity,
  discoverDeckRows,
  type EvaluationJob,
  evaluationDirOf,
  expandEvaluationJobs,
  type JobFilters,
  jobIdentity,
} from './discover-evaluation-jobs';
export {
  type AnswerabilityBatchResult,
  type ClaimVerdict,
  createEvalJudge,
  EVAL_STAGES,
  type EvalJudge,
  evalJudgeCapabilities,
  evalJudgeFrom,
  LexicalEvalJudge,
  LlmEvalJudge,
} from './eval-judge';
export {
  type EvaluateJobContext,
  type EvaluationSettings,
  evaluateJob,
  isJobCurrent,
  type JobInputs,
  type JobResult,
  MINISEARCH_VERSION,
  PARTIAL_SCORES_FILE,
  type RenderSlides,
  readJobInputs,
  scoreReuseKeyOf,
} from './evaluate-job';
export { evaluateJobRepeat, type RepeatResult, repeatFiles } from './evaluate-job-repeat';
export {
  type AnswerabilityUnit,
  type ClaimExtractionUnit,
  claimExtractionUnit,
  EVAL_OUTPUT_TOKENS,
  imageInputRefusal,
  judgeInputModeFor,
  type SlideImage,
  type VerificationItem,
  type VerificationUnit,
  verificationItems,
  verificationUnits,
} from './evaluation-work-list';
export {
  type DeckClaim,
  extractClaimsLexically,
  LEXICAL_CLAIM_MIN_CONTENT_WORDS,
} from './extract-claims-lexically';
export { findMissingEvaluationJobs } from './find-missing-evaluation-jobs';
export {
  judgeAnswerabilityLexically,
  LEXICAL_ANSWER_RECALL_THRESHOLD,
  LEXICAL_NUMERIC_ANSWER_RECALL_THRESHOLD,
} from './judge-answerability-lexically';
export { type JudgeInputMode, type ProbeJudgment, probeForJudge, uncoveredJudgment } from './probe-judgment';
export { renderSlidesWithDecks } from './render-slides-with-decks';
export {
  DEMO_IMPORTED_SYSTEM,
  DEMO_RUN,
  type DemoStageTiming,
  defaultFixturesDir,
  type RunDemoOptions,
  type RunDemoResult,
  runDemo,
} from './run-demo';
export {
  createModelLabelReader,
  DEFAULT_BATCH_SIZE,
  DEFAULT_EVAL_CONCURRENCY,
  DEFAULT_IMAGE_MODE_WORDS_PER_SLIDE,
  type EvaluationRunResult,
  evaluationSettingsFor,
  type RunEvaluationOptions,
  runClientOptions,
  runEvaluation,
  selectEvaluationJobs,
} from './run-evaluation';
export {
  type ClaimSettings,
  correctnessCacheKey,
  DEFAULT_CLAIM_SETTINGS,
  type ScoreCorrectnessInput,
  scoreDeckCorrectness,
} from './score-deck-correctness';
export {
  readAnswerabilityWork,
  type ScoreProbesInput,
  type ScoreReuseKey,
  scoreProbesInBatches,
} from './score-probes-in-batches';
export { slideVisibleText } from './slide-visible-text';
export {
  chunkSourceForRetrieval,
  type RetrievedSnippet,
  type SourceChunk,
  SourceRetriever,
} from './source-retriever';
export { LEXICAL_SUPPORT_RECALL, verifyClaimLexically } from './verify-claims-lexically';
