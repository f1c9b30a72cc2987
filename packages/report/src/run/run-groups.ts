import type { MetricSummary, MetricsGroupSummary } from '@xsb/core';

export interface GroupView {
  systemId: string;
  rowCount: number;
  /** As stage 7 decided it: the median deck rests on fewer than the summary's `thin_below` probes. */
  thin: boolean;
  includedProbes: { min: number; median: number; max: number } | null;
  metric(name: string): MetricSummary | undefined;
}

export function groupViews(groups: readonly MetricsGroupSummary[]): GroupView[] {
  return groups.map((group) => {
    const byName = new Map(group.metrics.map((metric) => [metric.metric, metric]));
    const range = group.included_probe_count;
    return {
      systemId: group.system_id,
      rowCount: group.row_count,
      thin: group.thin,
      includedProbes: range ? { min: range.min, median: range.median, max: range.max } : null,
      metric: (name: string) => byName.get(name),
    };
  });
}
