import { child, childrenNamed, collectText, descendants, nodeText, path, type XmlNode } from './xml-tree';

function pointValues(container: XmlNode | undefined): string[] {
  const points = descendants(container, 'pt')
    .map((pt) => ({ idx: Number(pt.attrs.idx ?? 0), value: nodeText(child(pt, 'v')).trim() }))
    .sort((a, b) => a.idx - b.idx);
  return points.map((pt) => pt.value);
}

/** Values are kept because a chart's figures are evidence a reader can see on the slide. */
export function readChartText(chartSpace: XmlNode | undefined): string {
  const chart = child(chartSpace, 'chart');
  if (!chart) return '';
  const lines: string[] = [];
  const plotArea = child(chart, 'plotArea');
  const series = plotArea ? plotArea.children.flatMap((plot) => childrenNamed(plot, 'ser')) : [];
  const title = collectText(child(chart, 'title')).trim();
  const titleDeleted = path(chart, 'autoTitleDeleted')?.attrs.val;
  const seriesName = (ser: XmlNode) =>
    nodeText(descendants(child(ser, 'tx'), 'v')[0]).trim() || collectText(child(ser, 'tx')).trim();
  if (title) lines.push(title);
  else if (child(chart, 'title') && titleDeleted !== '1' && series.length === 1) {
    // A title element without text shows the only series' name.
    const name = seriesName(series[0] as XmlNode);
    if (name) lines.push(name);
  }
  for (const axis of plotArea?.children ?? []) {
    if (!axis.name.endsWith('Ax')) continue;
    const axisTitle = collectText(child(axis, 'title')).trim();
    if (axisTitle) lines.push(axisTitle);
  }
  for (const ser of series) {
    const name = seriesName(ser);
    const categories = pointValues(child(ser, 'cat') ?? child(ser, 'xVal'));
    const values = pointValues(child(ser, 'val') ?? child(ser, 'yVal'));
    const pairs = values.map((value, index) => [categories[index], value].filter(Boolean).join(' '));
    const line = [name, pairs.join(', ')].filter((part) => part !== '').join(': ');
    if (line) lines.push(line);
  }
  return lines.join('\n');
}

/** SmartArt text: every point of the diagram's data model, one per line. */
export function readDiagramText(dataModel: XmlNode | undefined): string {
  return descendants(dataModel, 't')
    .map((item) =>
      item.children
        .map((text) => text.text)
        .join('')
        .trim(),
    )
    .filter((text) => text !== '')
    .join('\n');
}
