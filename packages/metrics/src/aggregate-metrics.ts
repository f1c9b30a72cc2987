import {
  bootstrapMeanInterval,
  compareCodePoints,
  deriveSeed,
  isXsbError,
  type MetricSummary,
  type MetricsGroupSummary,
  type MetricsSummary,
  XSB_VERSION,
} from '@xsb/core';
import { PROBE_DOMAINS, type ProbeDomain } from './classify-probe-domain';
import { computeDomainCoverage } from './compute-domain-coverage';
import { readEvaluationInputs } from './recompute-evaluation-metrics';
import type { MetricRow, SkippedMetricFile } from './scan-metric-files';

/** The bootstrap seed and resample count of stage 7 when the caller gives none (recorded in summary.json). */
export const DEFAULT_BOOTSTRAP_SEED = 20_240_607;
export const DEFAULT_BOOTSTRAP_RESAMPLES = 2000;

/** Row-level metrics summarised per group, in report order. */
export const SUMMARY_METRICS = [
  'coverage',
  'efficiency_time',
  'efficiency_slide',
  'efficiency_word',
  'correctness',
  'safe_efficiency_time',
] as const;

export const domainMetricName = (domain: ProbeDomain): string => `domain_coverage.${domain}`;

export interface AggregateOptions {
  seed?: number;
  resamples?: number;
  confidence?: number;
}

type DomainValues = Record<ProbeDomain, number | null>;

/** Domain-wise coverage of one evaluation row, recomputed from its probe, weight and score files. */
async function domainCoverageOf(row: MetricRow): Promise<DomainValues | null> {
  if (!row.evaluationDir) return null;
  const inputs = await readEvaluationInputs(row.evaluationDir);
  const coverage = computeDomainCoverage({ ...inputs, audience: row.audience, tauA: row.metrics.tau_a });
  return Object.fromEntries(PROBE_DOMAINS.map((d) => [d, coverage[d].coverage])) as DomainValues;
}

function metricValue(row: MetricRow, metric: string): number | null {
  const value = (row.metrics as Record<string, unknown>)[metric];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Stage 7: groups rows by (system_id, audience) and reports, per metric, the mean over rows with a
 * value, a seeded percentile-bootstrap interval and n. Each (group, metric) gets its own PRNG stream
 * derived from the seed and its name, so adding a group never changes another group's interval.
 */
export async function aggregateMetrics(
  rows: readonly MetricRow[],
  skipped: readonly SkippedMetricFile[],
  options: AggregateOptions = {},
): Promise<MetricsSummary> {
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  const extraSkipped: SkippedMetricFile[] = [];
  const domainValues = new Map<MetricRow, DomainValues | null>();
  for (const row of rows) {
    try {
      domainValues.set(row, await domainCoverageOf(row));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      domainValues.set(row, null);
      extraSkipped.push({ file: row.file, reason: `domain coverage not computed: ${error.message}` });
    }
  }

  const groups = new Map<string, MetricRow[]>();
  for (const row of rows) {
    const key = `${row.system_id}\u0000${row.audience}`;
    const list = groups.get(key) ?? [];
    list.push(row);
    groups.set(key, list);
  }
  const summaries: MetricsGroupSummary[] = [];
  for (const key of [...groups.keys()].sort(compareCodePoints)) {
    const members = groups.get(key)!;
    const first = members[0]!;
    const metricNames = [...SUMMARY_METRICS, ...PROBE_DOMAINS.map(domainMetricName)];
    const metrics: MetricSummary[] = metricNames.map((metric) => {
      const values: number[] = [];
      for (const row of members) {
        const value = metric.startsWith('domain_coverage.')
          ? (domainValues.get(row)?.[metric.slice('domain_coverage.'.length) as ProbeDomain] ?? null)
          : metricValue(row, metric);
        if (value !== null) values.push(value);
      }
      const interval = bootstrapMeanInterval(values, {
        seed: deriveSeed(seed, `${key}\u0000${metric}`),
        resamples,
        confidence,
      });
      return { metric, null_count: members.length - values.length, ...interval };
    });
    summaries.push({
      system_id: first.system_id,
      system: first.system,
      condition: first.condition,
      audience: first.audience,
      row_count: members.length,
      cases: members.map((row) => row.case_label).sort(compareCodePoints),
      metrics,
    });
  }
  return {
    stage: 'aggregate',
    xsb_version: XSB_VERSION,
    bootstrap: { seed, resamples, confidence, method: 'percentile bootstrap of the mean, mulberry32 PRNG' },
    row_count: rows.length,
    groups: summaries,
    rows: rows.map((row) => ({
      system_id: row.system_id,
      audience: row.audience,
      case_label: row.case_label,
      origin: row.origin,
      file: row.file,
    })),
    skipped: [...skipped, ...extraSkipped],
  };
}
