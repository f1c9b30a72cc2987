export { writeFileAtomic } from './atomic-write';
export { createBatchedLineWriter } from './batched-line-writer';
export { buildZip, type ZipEntryInput } from './build-zip';
export { compareCodePoints } from './compare-code-points';
export { acquireDirectoryLock, processIsAlive, withDirectoryLock } from './directory-lock';
export { isDiskFull } from './disk-full';
export { emptyProbeBankNote } from './empty-probe-bank-note';
export { emptyProbeBankWarnings, listEmptyProbeBanks } from './empty-probe-banks';
export {
  ConfigError,
  describeError,
  exitCodeFor,
  InputError,
  InternalError,
  isXsbError,
  ProviderError,
  type Remedy,
  stopsTheRun,
  UsageError,
  ValidationError,
  XSB_ERROR_CODES,
  XsbError,
  type XsbErrorCode,
} from './errors';
export { canonicalJson, hashBytes, hashCanonicalJson, hashFile } from './hash-content';
export { identifyDeckContent } from './identify-deck-content';
export { readJson, recordedInputHash, writeJson } from './json-file';
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
export { API_SCOPES, type ApiScope, portableNameSchema } from './schemas/api-names';
export {
  type AudienceWeight,
  type AudienceWeightInput,
  audienceWeightSchema,
  UTILITY_LEVELS,
} from './schemas/audience-weight';
export {
  type ClaimLabel,
  type Correctness,
  correctnessSchema,
  type VerifiedClaim,
} from './schemas/correctness';
export { type BoundingBox, type Deck, deckSchema, type Slide, type SlideElement } from './schemas/deck';
export { type DeckStats, deckStatsSchema } from './schemas/deck-stats';
export { type EvalJobStatus, evalJobStatusSchema } from './schemas/eval-job-status';
export {
  type MetaAnchorCheck,
  type MetaAnchorSet,
  metaAnchorCheckSchema,
  metaAnchorSetSchema,
} from './schemas/meta-anchor';
export { metadataSchema } from './schemas/metadata';
export {
  JUDGE_KINDS,
  type JudgeDescriptor,
  type JudgeKind,
  type Metrics,
  metricsSchema,
} from './schemas/metrics';
export {
  type MetricSummary,
  type MetricsGroupSummary,
  type MetricsSummary,
  type MissingJob,
  metricsSummarySchema,
} from './schemas/metrics-summary';
export { type Evidence, type Probe, type ProbeInput, probeSchema } from './schemas/probe';
export { type ProbeGenerationStatus, probeGenerationStatusSchema } from './schemas/probe-generation-status';
export { type ProbeScore, type ProbeScoreInput, probeScoreSchema } from './schemas/probe-score';
export { type RunManifest, runManifestSchema } from './schemas/run-manifest';
export {
  type Condition,
  conditionSchema,
  type RunSheetRow,
  runSheetRowSchema,
} from './schemas/run-sheet-row';
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
  executeWorkList,
  progressListener,
  type StageEvent,
  type StageEventListener,
  type UnitContext,
  type UnitOutcome,
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
  modelPriceSchema,
  type ProviderLimits,
  unknownGeneratorPlaceholders,
  type XsbConfig,
  type XsbConfigInput,
  xsbConfigSchema,
} from './xsb-config';
export { DEFAULT_ZIP_LIMITS, ZipArchive, type ZipLimits } from './zip-archive';
