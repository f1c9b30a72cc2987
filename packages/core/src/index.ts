export { writeFileAtomic } from './atomic-write';
export { createBatchedLineWriter } from './batched-line-writer';
export { bootstrapMeanInterval, type MeanInterval, quantileSorted } from './bootstrap-mean-interval';
export { buildZip, type ZipEntryInput } from './build-zip';
export { compareCodePoints } from './compare-code-points';
export {
  detectSourceLanguage,
  isLanguageDetectorRunning,
  LANGUAGE_DETECTOR_IDLE_MS,
  stopLanguageDetector,
} from './detect-source-language';
export { acquireDirectoryLock, processIsAlive, withDirectoryLock } from './directory-lock';
export { isDiskFull } from './disk-full';
export { emptyProbeBankNote, emptyProbeBankWarnings, listEmptyProbeBanks } from './empty-probe-banks';
export {
  ConfigError,
  describeError,
  exitCodeFor,
  InputError,
  InternalError,
  isXsbError,
  ProviderError,
  stopsTheRun,
  UsageError,
  ValidationError,
  XSB_ERROR_CODES,
  XsbError,
  type XsbErrorCode,
  type XsbErrorKind,
  type XsbErrorOptions,
} from './errors';
export { canonicalJson, hashBytes, hashCanonicalJson, hashFile } from './hash-content';
export { identifyDeckContent } from './identify-deck-content';
export { readJson, writeJson } from './json-file';
export { JsonlWriter, readJsonl, readJsonlAll, writeJsonlAtomic } from './jsonl';
export { mapWithConcurrency } from './map-with-concurrency';
export {
  type MergePart,
  type MergeReport,
  type MergeShardTreesOptions,
  mergeShardTrees,
  type ShardFileCombiner,
} from './merge-shard-trees';
export { didYouMean } from './nearest-name';
export { normalQuantile, sampleStandardDeviation } from './normal-quantile';
export { plural } from './plural';
export { cleanUpNow, createScratchDir, removeScratchDir, runTrackedProcess } from './process-cleanup';
export {
  countingProgress,
  createProgressReporter,
  type ProgressReporter,
  silentProgress,
} from './progress-reporter';
export { decodeUtf8Text, readUtf8Text } from './read-utf8-text';
export { assertSafePathPart, RunLayout } from './run-layout';
export {
  type ApiJob,
  apiJobAcceptedSchema,
  apiJobListSchema,
  apiJobSchema,
  JOB_STATUSES,
  type JobExecution,
  type JobKind,
  type JobProgress,
  type JobStatus,
} from './schemas/api-job';
export {
  API_SCOPES,
  type ApiDeckUpload,
  type ApiEvaluationParameters,
  type ApiEvaluationRequest,
  type ApiRubricEvaluationRequest,
  type ApiRubricParameters,
  type ApiScope,
  apiErrorSchema,
  apiEvaluationRequestSchema,
  apiRubricEvaluationRequestSchema,
  portableNameSchema,
} from './schemas/api-request';
export {
  type ApiEvaluationResult,
  type ApiRubricResult,
  apiEvaluationResultSchema,
  apiRubricResultSchema,
  apiRunListSchema,
} from './schemas/api-result';
export {
  type AudienceProfile,
  audienceProfilesFileSchema,
  type LexicalPreferences,
} from './schemas/audience-profile';
export { type AudienceWeight, audienceWeightSchema, UTILITY_LEVELS } from './schemas/audience-weight';
export { type BatchState, batchStateSchema } from './schemas/batch-state';
export {
  type BenchConfigFile,
  type BenchEvaluationOverrides,
  benchConfigFileSchema,
} from './schemas/bench-config';
export { type BenchRow, type BenchRowRubric, benchRowSchema } from './schemas/bench-row';
export {
  type BenchConfiguration,
  type BenchEvaluationSettings,
  type BenchJudge,
  type BenchJudgeCalls,
  type BenchRun,
  benchRunSchema,
} from './schemas/bench-run';
export {
  type BenchCaseKind,
  type BenchSplitName,
  type BenchSplitRow,
  benchSplitRowSchema,
} from './schemas/bench-split';
export {
  type BenchComparison,
  type BenchRunsComparison,
  type BenchShapley,
  type BenchStat,
  type BenchSummary,
  benchRunsComparisonSchema,
  benchSummarySchema,
} from './schemas/bench-summary';
export {
  type BenchGitState,
  type BenchTestLedgerEntry,
  benchTestLedgerEntrySchema,
} from './schemas/bench-test-ledger';
export {
  type ClaimLabel,
  type Correctness,
  correctnessSchema,
  type VerifiedClaim,
} from './schemas/correctness';
export { type CostPlan, type CostPlanRow, costPlanSchema } from './schemas/cost-plan';
export { type BoundingBox, type Deck, deckSchema, type Slide, type SlideElement } from './schemas/deck';
export { type DeckImportManifest, deckImportManifestSchema } from './schemas/deck-import-manifest';
export { type DeckOutline, deckOutlineSchema, type OutlineSlide } from './schemas/deck-outline';
export {
  type DeckBatchSummary,
  type DeckRowStatus,
  deckBatchSummarySchema,
  deckRowStatusSchema,
} from './schemas/deck-run-status';
export { type DeckStats, deckStatsSchema } from './schemas/deck-stats';
export { type EvalJobStatus, evalJobStatusSchema } from './schemas/eval-job-status';
export { type MetaAgreement, metaAgreementSchema } from './schemas/meta-agreement';
export {
  type MetaAnchorCheck,
  type MetaAnchorSet,
  metaAnchorCheckSchema,
  metaAnchorSetSchema,
} from './schemas/meta-anchor';
export {
  PERTURBATION_KINDS,
  type PerturbationChange,
  type PerturbationKind,
  type PerturbationRecord,
  perturbationRecordSchema,
} from './schemas/meta-perturbation';
export { type MetaRetest, type MetaRetestClass, metaRetestSchema } from './schemas/meta-retest';
export {
  type MetaScoreRow,
  type MetaSensitivity,
  metaScoreRowSchema,
  metaSensitivitySchema,
} from './schemas/meta-sensitivity';
export { type JudgeDescriptor, type JudgeKind, type Metrics, metricsSchema } from './schemas/metrics';
export {
  type MetricSummary,
  type MetricsGroupSummary,
  type MetricsSummary,
  type MissingJob,
  metricsSummarySchema,
} from './schemas/metrics-summary';
export { type Evidence, type Probe, probeSchema } from './schemas/probe';
export { type ProbeGenerationStatus, probeGenerationStatusSchema } from './schemas/probe-generation-status';
export { type ProbeScore, probeScoreSchema } from './schemas/probe-score';
export {
  type ReplayPendingLine,
  type ReplayStoreLine,
  replayPendingLineSchema,
  replayStoreLineSchema,
} from './schemas/replay-store';
export {
  type LayoutCheckResult,
  RUBRIC_PARSERS,
  type RubricEvaluation,
  type RubricItemResult,
  type RubricParser,
  type RubricRunRow,
  type RubricRunSummary,
  type RubricSection,
  type RubricSlideCountBase,
  type RubricUsage,
  type RubricVerdict,
  rubricEvaluationSchema,
  rubricRunSummarySchema,
} from './schemas/rubric-evaluation';
export {
  RUBRIC_CATEGORIES,
  RUBRIC_DIMENSIONS,
  type RubricCategory,
  type RubricChecklistItem,
  type RubricClassWeights,
  type RubricDimension,
  rubricClassWeightsSchema,
  rubricInstanceFileSchema,
} from './schemas/rubric-instance';
export {
  type PresentBenchResultFile,
  presentBenchResultFileSchema,
  presentBenchScoreFileSchema,
} from './schemas/rubric-presentbench';
export { type RunManifest, runManifestSchema } from './schemas/run-manifest';
export {
  type Condition,
  conditionSchema,
  type RunSheetRow,
  runSheetRowSchema,
} from './schemas/run-sheet-row';
export {
  SLIDETAILOR_TEMPLATE_MODE,
  slidetailorConfigSchema,
  slidetailorPreferenceSchema,
} from './schemas/slidetailor-job';
export {
  type SourceContext,
  type SourcePageFurniture,
  type SourcePageSpan,
  sourceContextSchema,
} from './schemas/source-context';
export {
  type SourceMetadata,
  type SourceMetadataInput,
  type SourceType,
  sourceMetadataInputSchema,
  sourceMetadataSchema,
  sourceTypeSchema,
} from './schemas/source-metadata';
export { type UsageLedgerEntry, usageLedgerEntrySchema } from './schemas/usage-ledger-entry';
export { type WeightFailure, weightFailureSchema } from './schemas/weight-failure';
export { createSeededRandom, deriveSeed } from './seeded-random';
export {
  isCaseInShard,
  parseShard,
  type Shard,
  shardFileTag,
  shardLabel,
  shardOfCase,
} from './shard-case';
export {
  type CallUsage,
  callsPerStage,
  defaultStopsStage,
  type ExecuteWorkListOptions,
  executeWorkList,
  progressListener,
  type StageEvent,
  type StageEventListener,
  UNIT_STATUSES,
  type UnitContext,
  type UnitOutcome,
  type UnitStatus,
  type WorkDecision,
  type WorkUnit,
} from './stage-contract';
export { validateRecord } from './validate-record';
export { XSB_VERSION } from './version';
export {
  type GeneratorConfig,
  type GeneratorPlaceholder,
  type LoadedConfig,
  loadConfig,
  type ModelPrice,
  type ProviderLimits,
  unknownGeneratorPlaceholders,
  type XsbConfig,
  type XsbConfigInput,
  xsbConfigSchema,
} from './xsb-config';
export { DEFAULT_ZIP_LIMITS, ZipArchive, type ZipLimits } from './zip-archive';
