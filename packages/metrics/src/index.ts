export {
  type AggregateOptions,
  aggregateMetrics,
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  domainMetricName,
  SUMMARY_METRICS,
} from './aggregate-metrics';
export { classifyProbeDomain, PROBE_DOMAINS } from './classify-probe-domain';
export { computeDomainCoverage } from './compute-domain-coverage';
export { computeMetrics, DEFAULT_TAU_A, joinIncludedProbes } from './compute-metrics';
export { describeJudge, hasOfflineJudge, mergeJudges, OFFLINE_JUDGE_WARNING } from './describe-judges';
export {
  EVALUATION_FILES,
  evaluationsRootFor,
  MANIFEST_INPUT_ROLES,
  resolveManifestInput,
} from './evaluation-files';
export type { EvaluationMetricReader } from './evaluation-metric-reader';
export { MANIFEST_MODEL_LABELS, readEvaluationInputs } from './recompute-evaluation-metrics';
export { formatJudges, formatMissingJob, renderResultsTables } from './render-summary';
export {
  assertFiltersMatch,
  type FilterableIdentity,
  filterAllows,
  hasFilters,
  matchesFilters,
  type RowFilters,
} from './row-filters';
export { runAggregation, SUMMARY_FILES } from './run-aggregation';
export { scanMetricFiles } from './scan-metric-files';
export { splitSystemId, systemIdFor } from './system-id';
export { rescoreRun, writeEvaluationMetrics } from './write-evaluation-metrics';
