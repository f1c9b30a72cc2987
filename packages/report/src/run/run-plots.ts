import { domainMetricName, PROBE_DOMAINS } from '@xsb/metrics';
import type { TopLevelSpec } from 'vega-lite';
import { intervalPlotSpec, intervalPoints } from '../plots/interval-plots';
import type { GroupView } from './run-groups';

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
export const THIN_COLORS = { 'enough probes': '#2457c5', 'thin group': '#e07b00' };

const groupLabel = (group: GroupView, metric: string) =>
  `${group.systemId} (n=${group.metric(metric)?.n ?? 0})${group.thin ? ' · thin' : ''}`;

export function coveragePlotSpec(groups: readonly GroupView[]): TopLevelSpec | null {
  const points = groups.flatMap((group) =>
    intervalPoints(
      groupLabel(group, 'coverage'),
      group.metric('coverage'),
      group.thin ? 'thin group' : 'enough probes',
    ),
  );
  if (points.length === 0) return null;
  return intervalPlotSpec(points, {
    xTitle: 'audience coverage (mean over decks, 95% bootstrap interval)',
    groupTitle: 'group',
    colors: THIN_COLORS,
    domain: [0, 1],
  });
}

export interface ScatterRow {
  systemId: string;
  caseLabel: string;
  coverage: number;
  efficiency: number;
}

export function efficiencyScatterSpec(
  groups: readonly GroupView[],
  rows: readonly ScatterRow[],
): TopLevelSpec | null {
  const means = groups.flatMap((group) => {
    const coverage = group.metric('coverage');
    const efficiency = group.metric('efficiency_time');
    if (!coverage || !efficiency || coverage.mean === null || efficiency.mean === null) return [];
    return [
      {
        systemId: group.systemId,
        coverage: coverage.mean,
        coverageLow: coverage.ci_low ?? coverage.mean,
        coverageHigh: coverage.ci_high ?? coverage.mean,
        efficiency: efficiency.mean,
        efficiencyLow: efficiency.ci_low ?? efficiency.mean,
        efficiencyHigh: efficiency.ci_high ?? efficiency.mean,
      },
    ];
  });
  if (means.length === 0) return null;
  const color = { field: 'systemId', type: 'nominal', title: 'system' };
  const x = {
    field: 'coverage',
    type: 'quantitative',
    title: 'audience coverage',
    scale: { domain: [0, 1] },
  };
  const y = {
    field: 'efficiency',
    type: 'quantitative',
    title: 'efficiency_time (utility per minute proxy)',
  };
  return {
    $schema: SCHEMA,
    width: 380,
    height: 260,
    layer: [
      {
        data: { values: rows },
        mark: { type: 'point', filled: true, opacity: 0.35, size: 35 },
        encoding: { x, y, color },
      },
      {
        data: { values: means },
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x: { ...x, field: 'coverageLow' }, x2: { field: 'coverageHigh' }, y, color },
      },
      {
        data: { values: means },
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: { x, y: { ...y, field: 'efficiencyLow' }, y2: { field: 'efficiencyHigh' }, color },
      },
      {
        data: { values: means },
        mark: { type: 'point', filled: true, size: 110, stroke: '#1d2430', strokeWidth: 1 },
        encoding: { x, y, color },
      },
    ],
  } as TopLevelSpec;
}

export function domainHeatmapSpec(groups: readonly GroupView[]): TopLevelSpec | null {
  const cells = groups.flatMap((group) =>
    PROBE_DOMAINS.map((domain) => {
      const stat = group.metric(domainMetricName(domain));
      const mean = stat?.mean ?? null;
      return {
        system: group.systemId,
        domain,
        mean,
        label: mean === null ? '–' : `${mean.toFixed(2)} (n=${stat?.n ?? 0})`,
      };
    }),
  );
  if (cells.every((cell) => cell.mean === null)) return null;
  const x = {
    field: 'domain',
    type: 'nominal',
    sort: [...PROBE_DOMAINS],
    title: 'probe domain',
    axis: { labelAngle: 0, orient: 'top' },
  };
  const y = { field: 'system', type: 'nominal', title: null };
  return {
    $schema: SCHEMA,
    data: { values: cells },
    width: { step: 92 },
    height: { step: 30 },
    layer: [
      // Every cell grey first: a domain without included probes stays visible as "no data", not blank.
      { mark: { type: 'rect', stroke: 'white', color: '#eceff3' }, encoding: { x, y } },
      {
        transform: [{ filter: 'datum.mean !== null' }],
        mark: { type: 'rect', stroke: 'white' },
        encoding: {
          x,
          y,
          color: {
            field: 'mean',
            type: 'quantitative',
            title: 'coverage',
            scale: { domain: [0, 1], scheme: 'blues' },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 10 },
        encoding: {
          x,
          y,
          text: { field: 'label' },
          color: { condition: { test: 'datum.mean > 0.6', value: 'white' }, value: '#1d2430' },
        },
      },
    ],
  } as TopLevelSpec;
}
