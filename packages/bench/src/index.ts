// One owner in @xsb/core (meta's Wilson interval uses the same quantile); kept here for bench's users.
export { normalQuantile, sampleStandardDeviation } from '@xsb/core';
export { BENCH_RUN_FILES, BenchLayout } from './bench-layout';
export {
  anchorCheckFile,
  anchorCheckPasses,
  anchorDir,
  anchorRunName,
  anchorSetFile,
  anchorStandings,
  anchorsRoot,
  DEFAULT_MIN_KAPPA,
  listAnchorSets,
} from './compare/anchor-checks';
export { applyHolm, compareRows, compareSides, planPairs, type SideComparison } from './compare/compare-rows';
export { compareBenchRuns } from './compare/compare-runs';
export { groupStats, shapleyOf, statOf } from './compare/summarize-rows';
export { summarizeBenchRun } from './compare/summarize-run';
export { BUILT_IN_FACTORS } from './configurations/bench-factors';
export { planConfigurations, selectFactors } from './configurations/configuration-sets';
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
  selectServableFactors,
  unservableReason,
} from './configurations/judge-capable-factors';
export { loadBenchConfig } from './configurations/load-bench-config';
export { mergeRunShards } from './merge/merge-run-shards';
export { formatNumber, formatPValue, renderBenchReport } from './report/render-report';
export {
  benchLayoutOfRunDir,
  compareBenchRun,
  readBenchRun,
  rerenderBenchReport,
} from './run/bench-run-files';
export { readGitState } from './run/git-state';
export { countDistinctWork, countEvaluationCalls } from './run/judge-calls';
export { benchJudgeInfo } from './run/judge-info';
export { chooseReference, referenceReason, runSheetSystemOrder } from './run/reference-system';
export { DEFAULT_DIAG_BELOW, runBench } from './run/run-bench';
export { createRunDir, markInterruptedRuns } from './run/run-record';
export { appendTestLedger, countTestLedger } from './run/test-ledger';
export { assignSplits, DEFAULT_TEST_SHARE } from './splits/assign-splits';
export { discoverBenchCases } from './splits/bench-cases';
export { readSplits, splitCases } from './splits/bench-splits';
export { caseLanguage } from './splits/case-language';
export { clusterBootstrapMean, clusterIndices } from './stats/cluster-bootstrap';
export { discordantPairs, exactMcNemar } from './stats/exact-mcnemar';
export { holmAdjust } from './stats/holm';
export { pairedComparison } from './stats/paired-comparison';
export { pairedVerdict } from './stats/paired-verdict';
export { casesNeeded, minimumDetectableEffect } from './stats/power';
export { shapleyValues } from './stats/shapley';
