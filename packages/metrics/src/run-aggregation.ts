import { join, relative } from 'node:path';
import type { MetricsSummary } from '@xsb/core';
import { UsageError } from '@xsb/core/basics';
import { type AggregateOptions, aggregateMetrics } from './aggregate-metrics';
import { loadCoreRecords } from './core-records';
import { renderSummaryCsv, renderSummaryReport } from './render-summary';
import { assertFiltersMatch, hasFilters, matchesFilters, type RowFilters } from './row-filters';
import { scanMetricFiles } from './scan-metric-files';
import { systemIdFor } from './system-id';

export interface RunAggregationOptions extends AggregateOptions {
  /**
   * Only rows (and missing jobs) of these systems, conditions, audiences and cases. A value that
   * names nothing found is a UsageError listing the known values.
   */
  filters?: RowFilters;
}

export const SUMMARY_FILES = { json: 'summary.json', csv: 'summary.csv', report: 'report.md' } as const;

/**
 * Stage 7 end to end: scans the roots, aggregates, and writes `summary.json`, `summary.csv` and
 * `report.md` into `outDir`. File paths inside the summary are relative to `outDir`, so the same
 * inputs in another folder give the same bytes.
 */
export async function runAggregation(
  roots: readonly string[],
  outDir: string,
  options: RunAggregationOptions = {},
): Promise<{ summary: MetricsSummary; files: { json: string; csv: string; report: string } }> {
  const { filters = {}, ...aggregateOptions } = options;
  const scanned = await scanMetricFiles(roots);
  const { skipped, duplicates } = scanned;
  let rows = scanned.rows;
  // A job whose row was found after all (e.g. its compact copy outlived the evaluation folder's
  // metrics.json) is in the summary, so it is not missing.
  const rowKeys = new Set(rows.map((row) => `${row.system_id}\u0000${row.audience}\u0000${row.case_label}`));
  let missingJobs = options.missingJobs?.filter(
    (job) =>
      !(job.system && job.condition && job.audience && job.case_label) ||
      !rowKeys.has(`${systemIdFor(job.system, job.condition)}\u0000${job.audience}\u0000${job.case_label}`),
  );
  if (hasFilters(filters)) {
    const known = [...rows, ...(missingJobs ?? [])];
    assertFiltersMatch(filters, known, `among the metric rows of ${roots.join(', ')}`);
    rows = rows.filter((row) => matchesFilters(filters, row));
    missingJobs = missingJobs?.filter((job) => matchesFilters(filters, job));
    if (rows.length === 0 && (missingJobs?.length ?? 0) === 0)
      throw new UsageError(
        'no metric row matches all the filters at once (each value matches some row, but not together)',
      );
  }
  const raw = await aggregateMetrics(rows, skipped, {
    ...aggregateOptions,
    ...(missingJobs ? { missingJobs } : {}),
  });
  const summary: MetricsSummary = {
    ...raw,
    rows: raw.rows.map((row) => ({ ...row, file: relative(outDir, row.file) })),
    skipped: raw.skipped.map((entry) => ({ ...entry, file: relative(outDir, entry.file) })),
    duplicates: duplicates.map((entry) => ({
      file: relative(outDir, entry.file),
      duplicate_of: relative(outDir, entry.duplicate_of),
    })),
    missing_jobs:
      raw.missing_jobs?.map((job) => ({ ...job, where: relative(outDir, job.where) || '.' })) ?? null,
  };
  const files = {
    json: join(outDir, SUMMARY_FILES.json),
    csv: join(outDir, SUMMARY_FILES.csv),
    report: join(outDir, SUMMARY_FILES.report),
  };
  const { metricsSummarySchema, writeFileAtomic, writeJson } = await loadCoreRecords();
  await writeJson(files.json, metricsSummarySchema, summary);
  await writeFileAtomic(files.csv, renderSummaryCsv(summary));
  await writeFileAtomic(files.report, renderSummaryReport(summary));
  return { summary, files };
}
