import { compareCodePoints, type MetricSummary, type MetricsSummary } from '@xsb/core';
import { domainMetricName, SUMMARY_METRICS } from './aggregate-metrics';
import { PROBE_DOMAINS } from './classify-probe-domain';

const CSV_COLUMNS = [
  'system_id',
  'system',
  'condition',
  'audience',
  'metric',
  'n',
  'null_count',
  'mean',
  'ci_low',
  'ci_high',
] as const;

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** `summary.csv`: one line per (system_id, audience, metric); empty cells for null values. */
export function renderSummaryCsv(summary: MetricsSummary): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const group of summary.groups) {
    for (const metric of group.metrics) {
      const record: Record<string, unknown> = { ...group, ...metric };
      lines.push(CSV_COLUMNS.map((column) => csvCell(record[column])).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}

function formatNumber(value: number): string {
  const magnitude = Math.abs(value);
  return magnitude !== 0 && (magnitude >= 1000 || magnitude < 0.001)
    ? value.toExponential(2)
    : value.toFixed(3);
}

/**
 * `0.607 [0.512, 0.701]`; a single value has no interval (`0.607`); `(n=2)` follows when fewer rows
 * than the group's `rowCount` had a value; `–` when none had.
 */
export function formatMetricCell(metric: MetricSummary | undefined, rowCount?: number): string {
  if (!metric || metric.mean === null) return '–';
  const interval =
    metric.n < 2 || metric.ci_low === null || metric.ci_high === null
      ? ''
      : ` [${formatNumber(metric.ci_low)}, ${formatNumber(metric.ci_high)}]`;
  const partial = rowCount !== undefined && metric.n < rowCount ? ` (n=${metric.n})` : '';
  return `${formatNumber(metric.mean)}${interval}${partial}`;
}

/** What a table cell means, for readers of the tables without the rest of the report. */
export function describeCells(summary: MetricsSummary): string {
  const { seed, resamples, confidence } = summary.bootstrap;
  return (
    `Cells: mean over the group's rows [${Math.round(confidence * 100)}% percentile-bootstrap interval, ` +
    `${resamples} resamples, seed ${seed}]; n = rows (decks) in the group; "(n=k)" = only k rows had a ` +
    `value; "–" = no row had a value (e.g. no probe reached tau_a). Coverage and correctness are in [0, 1]; ` +
    'efficiency_time is recovered utility per estimated talk minute (0.25 per slide + words / 130), ' +
    'efficiency_slide per slide, efficiency_word per visible word.'
  );
}

function table(header: string[], rows: string[][]): string[] {
  const escapeCell = (cell: string) => cell.replaceAll('|', '\\|');
  return [
    `| ${header.map(escapeCell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ];
}

/**
 * The results tables per audience (headline metrics, then domain-wise coverage), as markdown lines,
 * after a line saying what a cell means.
 */
export function renderResultsTables(summary: MetricsSummary): string[] {
  if (summary.groups.length === 0) return ['No metric rows were found.', ''];
  const lines: string[] = [describeCells(summary), ''];
  const audiences = [...new Set(summary.groups.map((group) => group.audience))].sort(compareCodePoints);
  for (const audience of audiences) {
    const groups = summary.groups.filter((group) => group.audience === audience);
    const pick = (group: (typeof groups)[number], name: string) =>
      formatMetricCell(
        group.metrics.find((metric) => metric.metric === name),
        group.row_count,
      );
    lines.push(`## Audience: ${audience}`, '');
    lines.push(
      ...table(
        ['system', 'n', ...SUMMARY_METRICS],
        groups.map((group) => [
          group.system_id,
          String(group.row_count),
          ...SUMMARY_METRICS.map((name) => pick(group, name)),
        ]),
      ),
      '',
    );
    lines.push(`Domain-wise coverage (${audience}):`, '');
    lines.push(
      ...table(
        ['system', ...PROBE_DOMAINS],
        groups.map((group) => [
          group.system_id,
          ...PROBE_DOMAINS.map((d) => pick(group, domainMetricName(d))),
        ]),
      ),
      '',
    );
  }
  return lines;
}

/** `report.md`: a readable table per audience, re-renderable from `summary.json` alone. */
export function renderSummaryReport(summary: MetricsSummary): string {
  const lines = [
    '# xsb results',
    '',
    `${summary.row_count} metric rows in ${summary.groups.length} (system, audience) groups; a system is ` +
      '`<generator>__<condition>`.',
    '',
    ...renderResultsTables(summary),
  ];
  if (summary.skipped.length > 0) {
    lines.push('## Skipped files', '');
    for (const entry of summary.skipped) lines.push(`- ${entry.file}: ${entry.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}
