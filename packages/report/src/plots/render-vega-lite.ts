import { InternalError } from '@xsb/core';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { escapeHtml } from '../html/escape-html';

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

/** Every plot's data is inline: a report never fetches. */
function offlineLoader(): ReturnType<typeof vega.loader> {
  const loader = vega.loader();
  const refuse = async (uri: string): Promise<never> => {
    throw new InternalError(`a report plot tried to load ${uri}; plots must carry their data inline`);
  };
  loader.load = refuse;
  loader.sanitize = refuse as typeof loader.sanitize;
  return loader;
}

export async function renderVegaLiteSvg(spec: TopLevelSpec): Promise<string> {
  const withConfig = { ...spec, config: { ...BASE_CONFIG, ...(spec.config ?? {}) } } as TopLevelSpec;
  // vega-lite's compile notes (e.g. on unioned facet domains) are about layout, not data: not printed.
  const quiet = vega.logger(vega.None);
  const compiled = compile(withConfig, { logger: quiet }).spec;
  // Vega logs dataflow errors (a refused load among them) and renders an empty plot; collect them
  // and fail instead, so a broken plot never ships silently.
  const errors: string[] = [];
  const logger = vega.logger(vega.Warn);
  logger.error = (...args: readonly unknown[]) => {
    errors.push(args.map(String).join(' '));
    return logger;
  };
  // vega reports a failed load as a warning ("Loading failed …"): that one is an error here.
  logger.warn = (...args: readonly unknown[]) => {
    if (String(args[0]).startsWith('Loading failed')) errors.push(args.map(String).join(' '));
    return logger;
  };
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: offlineLoader(), logger });
  try {
    const svg = await view.toSVG();
    if (errors.length > 0) throw new InternalError(`a report plot failed: ${errors.join('; ')}`);
    return svg;
  } finally {
    view.finalize();
  }
}

/** vega numbers gradient and clip ids process-wide (`gradient_3`): renamed so a rebuild gives the same bytes. */
function stableIds(svg: string, prefix: string): string {
  const ids = [...new Set([...svg.matchAll(/id="([A-Za-z]+_\d+)"/g)].map((match) => match[1] as string))];
  let result = svg;
  ids.forEach((id, index) => {
    result = result
      .split(`"${id}"`)
      .join(`"${prefix}-${index}"`)
      .split(`#${id})`)
      .join(`#${prefix}-${index})`);
  });
  return result;
}

export async function plotFigure(id: string, spec: TopLevelSpec, caption: string): Promise<string> {
  const svg = stableIds(await renderVegaLiteSvg(spec), `${id}-def`);
  return `<figure class="plot" id="${escapeHtml(id)}" data-plot>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}
