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

/** A dot per row with its interval as a rule: every "mean with 95% interval" in the reports. */
export function intervalPlotSpec(
  points: readonly IntervalPoint[],
  options: IntervalPlotOptions,
): TopLevelSpec {
  // Legends list only what the plot shows, in the declared order.
  const present = new Set(points.map((point) => point.group));
  const groups = Object.keys(options.colors).filter((group) => present.has(group));
  const x = {
    field: 'mean',
    type: 'quantitative' as const,
    title: options.xTitle,
    scale: options.domain ? { domain: options.domain } : { zero: options.reference === 0 },
  };
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: null };
  const color = {
    field: 'group',
    type: 'nominal' as const,
    title: options.groupTitle,
    scale: { domain: groups, range: groups.map((group) => options.colors[group] as string) },
  };
  const shapesPresent = new Set(points.map((point) => point.shape ?? ''));
  const shapeNames = Object.keys(options.shapes ?? {}).filter((name) => shapesPresent.has(name));
  const shape = options.shapes
    ? {
        field: 'shape',
        type: 'nominal' as const,
        title: options.shapeTitle ?? '',
        scale: { domain: shapeNames, range: shapeNames.map((name) => options.shapes?.[name] as string) },
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
      mark: { type: 'rule', color: '#888', strokeDash: [4, 3] },
      encoding: { x: { datum: options.reference, type: 'quantitative' } },
    });
  const values = points.map((point) => ({ ...point, shape: point.shape ?? '' }));
  const width = options.width ?? 420;
  if (points.some((point) => point.facet !== undefined)) {
    // One panel per facet (e.g. per metric), each with its own x scale and rows.
    return {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      data: { values },
      facet: {
        row: {
          field: 'facet',
          type: 'nominal',
          title: null,
          sort: null,
          header: {
            labelAngle: 0,
            labelOrient: 'top',
            labelAnchor: 'start',
            labelFontWeight: 'bold',
            labelFontSize: 12,
          },
        },
      },
      spec: { width, height: { step: 22 }, layer: layers },
      resolve: { scale: { x: 'independent', y: 'independent' } },
    } as TopLevelSpec;
  }
  const rows = new Set(points.map((point) => point.label)).size;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    width,
    height: Math.max(40, rows * 24),
    layer: layers,
  } as TopLevelSpec;
}
