import type { Metrics } from '@xsb/core';
import { describe, expect, it } from 'vitest';
import { groupMetricRows, summarizeGroup } from './aggregate-metrics';
import type { MetricRow } from './scan-metric-files';

const row = (
  system_id: string,
  audience: string,
  case_label: string,
  coverage: number | null,
): MetricRow => ({
  system_id,
  system: system_id,
  condition: null,
  audience,
  case_label,
  origin: 'compact',
  file: `${system_id}/${audience}/${case_label}.json`,
  evaluationDir: null,
  metrics: {
    audience,
    tau_a: 0.7,
    included_probe_count: 12,
    available_utility: 1,
    recovered_utility: coverage ?? 0,
    coverage,
    efficiency_time: null,
    efficiency_slide: null,
  } satisfies Metrics,
});

const bootstrap = { seed: 7, resamples: 200, confidence: 0.95 };

describe('groupMetricRows', () => {
  it('groups by system and audience, groups in key order, rows in input order', () => {
    const groups = groupMetricRows([row('b', 'x', 'c2', 1), row('a', 'x', 'c1', 1), row('b', 'x', 'c1', 0)]);
    expect(groups.map((g) => [g.key.replace('\u0000', '/'), g.members.map((m) => m.case_label)])).toEqual([
      ['a/x', ['c1']],
      ['b/x', ['c2', 'c1']],
    ]);
  });
});

describe('summarizeGroup', () => {
  it('means each metric over the rows with a value, counts the nulls, and sorts the cases', () => {
    const [group] = groupMetricRows([
      row('s', 'x', 'c2', 0.5),
      row('s', 'x', 'c1', null),
      row('s', 'x', 'c3', 1),
    ]);
    const summary = summarizeGroup(group!, new Map(), bootstrap);
    const coverage = summary.metrics.find((m) => m.metric === 'coverage')!;
    expect(coverage).toMatchObject({ mean: 0.75, n: 2, null_count: 1 });
    expect(summary).toMatchObject({
      row_count: 3,
      cases: ['c1', 'c2', 'c3'],
      missing_cases: [],
      thin: false,
    });
    expect(summary.included_probe_count).toEqual({ min: 12, median: 12, max: 12 });
  });
  it('gives a group the same interval whatever other groups exist (its own seed stream)', () => {
    const rows = [row('s', 'x', 'c1', 0.2), row('s', 'x', 'c2', 0.9), row('s', 'x', 'c3', 0.4)];
    const alone = summarizeGroup(groupMetricRows(rows)[0]!, new Map(), bootstrap);
    const withOther = groupMetricRows([row('a', 'x', 'c1', 1), ...rows]).find((g) => g.key.startsWith('s'))!;
    expect(summarizeGroup(withOther, new Map(), bootstrap).metrics).toEqual(alone.metrics);
  });
});
