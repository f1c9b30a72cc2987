import type { TopLevelSpec } from 'vega-lite';

export interface IntervalPoint {
  /** The row label (y axis). */
  label: string;
  mean: number;
  low: number;
  high: number;
  /** Colour group (e.g. "thin" vs "enough probes", or a verdict). */
  group: string;
  /** Shape group (e.g. `diag`); defaults to one shape. */
  shape?: string;
  /** Optional facet (e.g. metric of a comparison). */
  facet?: string;
}

export interface IntervalPlotOptions {
  xTitle: string;
  groupTitle: string;
  /** Colours per group value, in legend order. */
  colors: Record<string, string>;
  shapeTitle?: string;
  shapes?: Record<string, string>;
  /** Fixed x domain (e.g. [0, 1] for coverage); otherwise fitted to the intervals. */
  domain?: [number, number];
  /** Draw a vertical line at this x (0 for differences). */
  reference?: number;
  width?: number;
}

/**
 * A dot per row with its interval as a horizontal rule (a forest plot when the rows are differences):
 * the one shape every "mean with 95% interval" in the reports takes.
 */
export function intervalPlotSpec(
  points: readonly IntervalPoint[],
  options: IntervalPlotOptions,
): TopLevelSpec {
  const groups = Object.keys(options.colors);
  const x = {
    field: 'mean',
    type: 'quantitative' as const,
    title: options.xTitle,
    ...(options.domain ? { scale: { domain: options.domain, zero: false } } : { scale: { zero: false } }),
  };
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: null };
  const color = {
    field: 'group',
    type: 'nominal' as const,
    title: options.groupTitle,
    scale: { domain: groups, range: groups.map((group) => options.colors[group] as string) },
  };
  const shape = options.shapes
    ? {
        field: 'shape',
        type: 'nominal' as const,
        title: options.shapeTitle ?? '',
        scale: {
          domain: Object.keys(options.shapes),
          range: Object.values(options.shapes),
        },
      }
    : undefined;
  const layers: unknown[] = [
    {
      mark: { type: 'rule', strokeWidth: 2 },
      encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' }, color },
    },
    {
      mark: { type: 'point', filled: true, size: 70 },
      encoding: { y, x, color, ...(shape ? { shape } : {}) },
    },
  ];
  if (options.reference !== undefined)
    layers.unshift({
      data: { values: [{ ref: options.reference }] },
      mark: { type: 'rule', color: '#888', strokeDash: [4, 3] },
      encoding: { x: { field: 'ref', type: 'quantitative' } },
    });
  const rows = new Set(points.map((point) => point.label)).size;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values: points.map((point) => ({ ...point, shape: point.shape ?? '' })) },
    width: options.width ?? 420,
    height: Math.max(40, rows * 24),
    layer: layers,
  } as TopLevelSpec;
}
