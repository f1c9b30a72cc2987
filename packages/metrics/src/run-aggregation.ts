import { join, relative } from 'node:path';
import { type MetricsSummary, metricsSummarySchema, writeFileAtomic, writeJson } from '@xsb/core';
import { type AggregateOptions, aggregateMetrics } from './aggregate-metrics';
import { renderSummaryCsv, renderSummaryReport } from './render-summary';
import { scanMetricFiles } from './scan-metric-files';

export const SUMMARY_FILES = { json: 'summary.json', csv: 'summary.csv', report: 'report.md' } as const;

/**
 * Stage 7 end to end: scans the roots, aggregates, and writes `summary.json`, `summary.csv` and
 * `report.md` into `outDir`. File paths inside the summary are relative to `outDir`, so the same
 * inputs in another folder give the same bytes.
 */
export async function runAggregation(
  roots: readonly string[],
  outDir: string,
  options: AggregateOptions = {},
): Promise<{ summary: MetricsSummary; files: { json: string; csv: string; report: string } }> {
  const { rows, skipped, duplicates } = await scanMetricFiles(roots);
  const raw = await aggregateMetrics(rows, skipped, options);
  const summary: MetricsSummary = {
    ...raw,
    rows: raw.rows.map((row) => ({ ...row, file: relative(outDir, row.file) })),
    skipped: raw.skipped.map((entry) => ({ ...entry, file: relative(outDir, entry.file) })),
    duplicates: duplicates.map((entry) => ({
      file: relative(outDir, entry.file),
      duplicate_of: relative(outDir, entry.duplicate_of),
    })),
  };
  const files = {
    json: join(outDir, SUMMARY_FILES.json),
    csv: join(outDir, SUMMARY_FILES.csv),
    report: join(outDir, SUMMARY_FILES.report),
  };
  await writeJson(files.json, metricsSummarySchema, summary);
  await writeFileAtomic(files.csv, renderSummaryCsv(summary));
  await writeFileAtomic(files.report, renderSummaryReport(summary));
  return { summary, files };
}
