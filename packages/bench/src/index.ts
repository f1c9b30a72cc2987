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
export type { SideComparison } from './compare/compare-rows';
export { compareBenchRuns } from './compare/compare-runs';
export { mergeRunShards } from './merge/merge-run-shards';
export { formatNumber, formatPValue } from './report/render-report';
export { benchLayoutOfRunDir, compareBenchRun, rerenderBenchReport } from './run/bench-run-files';
export { readGitState } from './run/git-state';
export { benchJudgeInfo } from './run/judge-info';
export { referenceReason } from './run/reference-system';
export { DEFAULT_DIAG_BELOW, runBench } from './run/run-bench';
export { markInterruptedRuns } from './run/run-record';
export { countTestLedger } from './run/test-ledger';
export { benchConfigFileSchema } from './schemas/bench-config';
export { type BenchRow, benchRowSchema } from './schemas/bench-row';
export { benchRunSchema } from './schemas/bench-run';
export { benchSplitRowSchema } from './schemas/bench-split';
export {
  type BenchComparison,
  type BenchRunsComparison,
  type BenchStat,
  type BenchSummary,
  benchRunsComparisonSchema,
  benchSummarySchema,
} from './schemas/bench-summary';
export { benchTestLedgerEntrySchema } from './schemas/bench-test-ledger';
export { DEFAULT_TEST_SHARE } from './splits/assign-splits';
export { discoverBenchCases } from './splits/bench-cases';
export { readSplits, splitCases } from './splits/bench-splits';
