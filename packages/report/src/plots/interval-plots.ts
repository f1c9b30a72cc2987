import type { TopLevelSpec } from 'vega-lite';

export interface IntervalPoint {
  label: string;
  mean: number;
  low: number;
  high: number;
  group: string;
  shape?: string;
  /** One panel per facet, each with its own scales. */
  facet?: string;
}

export interface IntervalPlotOptions {
  xTitle: string;
  groupTitle: string;
  /** In legend order. */
  colors: Record<string, string>;
  shapeTitle?: string;
  shapes?: Record<string, string>;
  domain?: [number, number];
  reference?: number;
  width?: number;
}

/** A mean and its interval as one point (none without a mean); a missing bound is the mean. */
export function intervalPoints(
  label: string,
  stat: { mean: number | null; ci_low: number | null; ci_high: number | null } | undefined,
  group: string,
): IntervalPoint[] {
  if (!stat || stat.mean === null) return [];
  return [{ label, mean: stat.mean, low: stat.ci_low ?? stat.mean, high: stat.ci_high ?? stat.mean, group }];
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
