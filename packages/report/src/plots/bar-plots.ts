import type { TopLevelSpec } from 'vega-lite';

export interface IntervalBar {
  label: string;
  value: number;
  low: number | null;
  high: number | null;
  group: string;
}

/** Horizontal bars from 0 with the 95% interval as a black rule (Shapley values, leave-one-out deltas). */
export function barIntervalSpec(
  bars: readonly IntervalBar[],
  options: { xTitle: string; colors: Record<string, string>; groupTitle: string },
): TopLevelSpec {
  const y = { field: 'label', type: 'nominal', title: null, sort: null };
  const x = { field: 'value', type: 'quantitative', title: options.xTitle };
  const groups = Object.keys(options.colors);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: bars.map((bar) => ({ ...bar, low: bar.low ?? bar.value, high: bar.high ?? bar.value })) },
    width: 420,
    height: Math.max(40, bars.length * 26),
    layer: [
      {
        mark: { type: 'bar', height: 14 },
        encoding: {
          y,
          x,
          color: {
            field: 'group',
            type: 'nominal',
            title: options.groupTitle,
            scale: { domain: groups, range: groups.map((group) => options.colors[group]) },
          },
        },
      },
      {
        mark: { type: 'rule', color: '#1d2430', strokeWidth: 1.5 },
        encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' } },
      },
      {
        data: { values: [{ zero: 0 }] },
        mark: { type: 'rule', color: '#888' },
        encoding: { x: { field: 'zero', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}
