export {
  type AggregateOptions,
  aggregateMetrics,
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  domainMetricName,
  MISSING_JOBS_UNKNOWN_NOTE,
  SUMMARY_METRICS,
  THIN_BELOW_PROBES,
} from './aggregate-metrics';
export {
  classifyProbeDomain,
  DOMAIN_FIELD_WEIGHTS,
  DOMAIN_KEYWORDS,
  DOMAIN_PRECEDENCE,
  type DomainClassifiable,
  PROBE_DOMAINS,
  type ProbeDomain,
} from './classify-probe-domain';
export { computeDomainCoverage, type DomainCoverage } from './compute-domain-coverage';
export {
  type ComputedMetrics,
  type ComputeMetricsInput,
  computeMetrics,
  DEFAULT_TAU_A,
  type IncludedProbe,
  joinIncludedProbes,
  type MetricsJoinReport,
  TAU_A_TOLERANCE,
  TIME_COST,
} from './compute-metrics';
export {
  describeJudge,
  hasOfflineJudge,
  JUDGED_STAGES,
  mergeJudges,
  OFFLINE_JUDGE_ID,
  OFFLINE_JUDGE_WARNING,
} from './describe-judges';
export {
  EVALUATION_FILES,
  EVALUATION_VARIANT_PREFIX,
  evaluationsRootFor,
  MANIFEST_INPUT_ROLES,
  resolveManifestInput,
} from './evaluation-files';
export {
  type EvaluationInputs,
  MANIFEST_MODEL_LABELS,
  readEvaluationInputs,
  recomputeEvaluationMetrics,
} from './recompute-evaluation-metrics';
export {
  formatJudges,
  formatMetricCell,
  formatMissingJob,
  renderResultsTables,
  renderSummaryCsv,
  renderSummaryHeader,
  renderSummaryReport,
} from './render-summary';
export {
  assertFiltersMatch,
  type FilterableIdentity,
  filterAllows,
  hasFilters,
  matchesFilters,
  type RowFilters,
} from './row-filters';
export { type RunAggregationOptions, runAggregation, SUMMARY_FILES } from './run-aggregation';
export {
  type DuplicateMetricFile,
  type MetricRow,
  type SkippedMetricFile,
  scanMetricFiles,
} from './scan-metric-files';
export { SYSTEM_ID_SEPARATOR, splitSystemId, systemIdFor } from './system-id';
export {
  type EvaluationIdentity,
  type EvaluationMetricsRecord,
  listFinishedEvaluations,
  rescoreRun,
  writeEvaluationMetrics,
} from './write-evaluation-metrics';
