import type { MetricSummary, MetricsSummary } from '@xsb/core';
import { domainMetricName, SUMMARY_METRICS } from './aggregate-metrics';
import { PROBE_DOMAINS } from './classify-probe-domain';
import { compareText } from './compare-text';

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

/** `0.607 [0.512, 0.701]`, or `–` when no row had a value. */
export function formatMetricCell(metric: MetricSummary | undefined): string {
  if (!metric || metric.mean === null) return '–';
  if (metric.ci_low === null || metric.ci_high === null) return formatNumber(metric.mean);
  return `${formatNumber(metric.mean)} [${formatNumber(metric.ci_low)}, ${formatNumber(metric.ci_high)}]`;
}

function table(header: string[], rows: string[][]): string[] {
  const escapeCell = (cell: string) => cell.replaceAll('|', '\\|');
  return [
    `| ${header.map(escapeCell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ];
}

/** The results tables per audience (headline metrics, then domain-wise coverage), as markdown lines. */
export function renderResultsTables(summary: MetricsSummary): string[] {
  const lines: string[] = [];
  const audiences = [...new Set(summary.groups.map((group) => group.audience))].sort(compareText);
  for (const audience of audiences) {
    const groups = summary.groups.filter((group) => group.audience === audience);
    const pick = (group: (typeof groups)[number], name: string) =>
      formatMetricCell(group.metrics.find((metric) => metric.metric === name));
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
  const { seed, resamples, confidence } = summary.bootstrap;
  const lines = [
    '# xsb results',
    '',
    `${summary.row_count} metric rows in ${summary.groups.length} (system, audience) groups. Cells are the mean ` +
      `over rows with a value and its ${Math.round(confidence * 100)}% percentile-bootstrap interval ` +
      `(${resamples} resamples, seed ${seed}); n is the number of rows of the group; "–" means no row had a value.`,
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
