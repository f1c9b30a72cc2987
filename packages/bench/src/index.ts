// One owner in @xsb/core (meta's Wilson interval uses the same quantile); kept here for bench's users.
export { normalQuantile, sampleStandardDeviation } from '@xsb/core';
export { BENCH_RUN_FILES, BenchLayout } from './bench-layout';
export { BENCH_METRICS, isRubricMetric, metricValue, RUBRIC_METRICS, XSLIDES_METRICS } from './bench-metrics';
export {
  type AnchorCheckVerdict,
  type AnchorStanding,
  anchorCheckFile,
  anchorCheckPasses,
  anchorDir,
  anchorRunName,
  anchorSetFile,
  anchorStandings,
  anchorsRoot,
  DEFAULT_MIN_KAPPA,
  judgeFileName,
  listAnchorSets,
} from './compare/anchor-checks';
export {
  applyHolm,
  type CompareOptions,
  type ComparisonSide,
  compareRows,
  compareSides,
  type PlannedPair,
  planPairs,
  type SideComparison,
} from './compare/compare-rows';
export { type CompareRunsOptions, compareBenchRuns } from './compare/compare-runs';
export { groupStats, presentMetrics, type SummaryOptions, shapleyOf, statOf } from './compare/summarize-rows';
export { planOfRun, summarizeBenchRun } from './compare/summarize-run';
export { BUILT_IN_FACTORS, type FactorDefinition } from './configurations/bench-factors';
export {
  type ConfigurationPlan,
  DEFAULT_CONFIGURATION,
  GENERATED_SETS,
  type PlannedConfiguration,
  planConfigurations,
  selectFactors,
} from './configurations/configuration-sets';
export {
  applyOverrides,
  baseEvaluationSettings,
  evaluationsDirFor,
  evaluationVariant,
  settingsDigest,
} from './configurations/evaluation-settings';
export {
  assertServableConfigurations,
  factorUnservableReason,
  type LeftOutFactor,
  selectServableFactors,
  unservableReason,
} from './configurations/judge-capable-factors';
export { type LoadedBenchConfig, loadBenchConfig } from './configurations/load-bench-config';
export { mergeRunShards, SHARD_FILE_COMBINERS } from './merge/merge-run-shards';
export { formatNumber, formatPValue, formatStat, renderBenchReport } from './report/render-report';
export {
  benchLayoutOfRunDir,
  compareBenchRun,
  readBenchRun,
  rerenderBenchReport,
} from './run/bench-run-files';
export { readGitState } from './run/git-state';
export { countDistinctWork, countEvaluationCalls } from './run/judge-calls';
export { benchJudgeInfo } from './run/judge-info';
export {
  chooseReference,
  type ReferenceFrom,
  referenceReason,
  runSheetSystemOrder,
} from './run/reference-system';
export {
  type BenchClientSettings,
  type BenchFill,
  type BenchRunResult,
  type BenchSplitSelection,
  DEFAULT_DIAG_BELOW,
  type RunBenchOptions,
  runBench,
} from './run/run-bench';
export { createRunDir, markInterruptedRuns, utcStamp, writeRunRecord } from './run/run-record';
export { appendTestLedger, countTestLedger } from './run/test-ledger';
export { assignSplits, DEFAULT_TEST_SHARE, type SplitCandidate } from './splits/assign-splits';
export {
  type BenchCase,
  type DiscoveredBenchCases,
  discoverBenchCases,
  rubricRoot,
} from './splits/bench-cases';
export { readSplits, type SplitResult, splitCases } from './splits/bench-splits';
export { caseLanguage, UNDETERMINED_LANGUAGE } from './splits/case-language';
export {
  type ClusterBootstrapOptions,
  type ClusterInterval,
  clusterBootstrapMean,
  clusterIndices,
  DEFAULT_CLUSTER_RESAMPLES,
} from './stats/cluster-bootstrap';
export { discordantPairs, exactMcNemar, type McNemarResult } from './stats/exact-mcnemar';
export { holmAdjust } from './stats/holm';
export { type PairedResult, type PairedUnit, pairedComparison } from './stats/paired-comparison';
export { type PairedVerdict, pairedVerdict } from './stats/paired-verdict';
export { type CasesNeeded, casesNeeded, minimumDetectableEffect, type PowerSettings } from './stats/power';
export { shapleyValues } from './stats/shapley';
