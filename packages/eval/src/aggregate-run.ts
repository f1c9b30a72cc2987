import { listEmptyProbeBanks, type MetricsSummary, RunLayout } from '@xsb/core';
import { type AggregateOptions, type RowFilters, runAggregation } from '@xsb/metrics';
import { listProbeLanguageNotes } from '@xsb/probes';
import { findMissingEvaluationJobs } from './find-missing-evaluation-jobs';

export interface AggregateRunOptions extends Omit<AggregateOptions, 'missingJobs'> {
  dataDir: string;
  run: string;
  /** Default `runs/<run>/summary`. */
  outDir?: string;
  filters?: RowFilters;
}

/** Stage 7 for a run, listing jobs without metrics as `missing_jobs` so nothing drops out silently. */
export async function aggregateRun(
  options: AggregateRunOptions,
): Promise<{ summary: MetricsSummary; files: { json: string; csv: string; report: string } }> {
  const { dataDir, run, outDir, ...aggregate } = options;
  const layout = new RunLayout(dataDir);
  const missingJobs = await findMissingEvaluationJobs(layout, run);
  // A case whose bank is empty has rows with null coverage: the summary names it.
  const emptyProbeBanks = await listEmptyProbeBanks(layout, aggregate.filters?.cases);
  const probeLanguageNotes = await listProbeLanguageNotes(layout, aggregate.filters?.cases);
  return runAggregation([layout.runDir(run)], outDir ?? layout.summaryDir(run), {
    ...aggregate,
    missingJobs,
    emptyProbeBanks,
    probeLanguageNotes,
  });
}
