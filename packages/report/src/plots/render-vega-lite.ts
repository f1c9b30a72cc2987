import { InternalError } from '@xsb/core';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { escapeHtml } from '../html/escape-html';

/** The system font stack the page uses, so plot text matches it without any webfont. */
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, Liberation Sans, sans-serif';

const BASE_CONFIG = {
  font: FONT,
  background: 'white',
  view: { stroke: '#d9dee7' },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  // Without a canvas vega over-estimates text widths (~0.8 em a character), so any limit would cut
  // labels that fit; none is set and the estimate only widens the label area.
  axisY: { labelLimit: 0 },
  axisX: { labelLimit: 0 },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 0 },
};

/** A loader that refuses every load: every plot's data is inline, and a report never fetches. */
function offlineLoader(): ReturnType<typeof vega.loader> {
  const loader = vega.loader();
  const refuse = async (uri: string): Promise<never> => {
    throw new InternalError(`a report plot tried to load ${uri}; plots must carry their data inline`);
  };
  loader.load = refuse;
  loader.sanitize = refuse as typeof loader.sanitize;
  return loader;
}

/**
 * A Vega-Lite spec compiled (vega-lite) and rendered to an SVG string in Node (vega's headless SVG
 * renderer: no canvas, no browser, no network). Text widths are vega's estimates without a canvas.
 */
export async function renderVegaLiteSvg(spec: TopLevelSpec): Promise<string> {
  const withConfig = { ...spec, config: { ...BASE_CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec;
  const compiled = compile(withConfig).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: offlineLoader() });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** A plot in a `<figure>` with its caption (what it shows and what it rests on). */
export async function plotFigure(id: string, spec: TopLevelSpec, caption: string): Promise<string> {
  const svg = await renderVegaLiteSvg(spec);
  return `<figure class="plot" id="${escapeHtml(id)}" data-plot>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}
