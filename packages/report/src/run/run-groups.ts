import type { MetricSummary, MetricsGroupSummary } from '@xsb/core';
import type { EvaluationView } from './read-run-report-data';

/**
 * A group is thin when one of its decks has fewer included probes than this (its coverage rests on a
 * handful of questions), unless summary.json says itself which groups are thin.
 */
export const THIN_GROUP_MIN_INCLUDED_PROBES = 5;

export interface ProbeCountRange {
  min: number;
  median: number;
  max: number;
}

export interface GroupView {
  systemId: string;
  audience: string;
  rowCount: number;
  thin: boolean;
  includedProbes: ProbeCountRange | null;
  metric(name: string): MetricSummary | undefined;
}

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function recordedRange(group: MetricsGroupSummary): ProbeCountRange | null {
  for (const key of ['included_probes', 'included_probe_count', 'included_probe_counts']) {
    const value = (group as Record<string, unknown>)[key];
    if (value && typeof value === 'object') {
      const { min, median, max } = value as Record<string, unknown>;
      if (typeof min === 'number' && typeof median === 'number' && typeof max === 'number')
        return { min, median, max };
    }
  }
  return null;
}

/** The summary's groups with their thin flag and included-probe range (recorded, else from the rows). */
export function groupViews(
  groups: readonly MetricsGroupSummary[],
  evaluations: readonly EvaluationView[],
): GroupView[] {
  return groups.map((group) => {
    const counts = evaluations
      .filter((e) => e.systemId === group.system_id && e.audience === group.audience && e.metrics)
      .map((e) => e.metrics!.included_probe_count)
      .sort((a, b) => a - b);
    const range =
      recordedRange(group) ??
      (counts.length > 0
        ? { min: counts[0] as number, median: median(counts), max: counts[counts.length - 1] as number }
        : null);
    const recordedThin = (group as Record<string, unknown>).thin;
    const thin =
      typeof recordedThin === 'boolean'
        ? recordedThin
        : range === null || range.min < THIN_GROUP_MIN_INCLUDED_PROBES;
    const byName = new Map(group.metrics.map((metric) => [metric.metric, metric]));
    return {
      systemId: group.system_id,
      audience: group.audience,
      rowCount: group.row_count,
      thin,
      includedProbes: range,
      metric: (name: string) => byName.get(name),
    };
  });
}
