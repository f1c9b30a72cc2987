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

/**
 * How to read the tables, for someone who has not read the spec: what a row, a cell and each metric
 * mean, and which way is better.
 */
function describeTables(summary: MetricsSummary): string[] {
  const { seed, resamples, confidence } = summary.bootstrap;
  return [
    'How to read these tables (one per audience; higher is better in every metric column):',
    '',
    '- system: `<generator>__<condition>`; audience_agnostic = one deck per case, scored for every ' +
      'audience; audience_conditioned = a deck written for this audience.',
    '- n: decks scored for this audience (at most one per source case).',
    `- cell: mean over those decks, then its ${Math.round(confidence * 100)}% percentile-bootstrap ` +
      `interval [low, high] (${resamples} resamples, seed ${seed}); no interval when one deck; ` +
      '"(n=k)": only k decks had a value; "–": none had (e.g. no probe of that domain reached tau_a).',
    '- coverage (0–1): share of the audience-weighted probe utility (source questions that matter to this ' +
      'audience: weight ≥ tau_a, default 0.7) that the deck answers.',
    '- efficiency_time: recovered utility per estimated talk minute (0.25 per slide + words / 130); ' +
      'efficiency_slide: per slide; efficiency_word: per visible word.',
    "- correctness (0–1): how well the source supports the deck's factual claims; contradicted and " +
      'unsupported claims lower it. safe_efficiency_time = efficiency_time × correctness.',
    '- domain-wise coverage: coverage over the probes of one domain (keyword classifier over the probe).',
  ];
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
 * after a legend saying how to read them.
 */
export function renderResultsTables(summary: MetricsSummary): string[] {
  if (summary.groups.length === 0) return ['No metric rows were found.', ''];
  const lines: string[] = [...describeTables(summary), ''];
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
    `${summary.row_count} metric rows (one per scored deck and audience) in ${summary.groups.length} ` +
      '(system, audience) groups.',
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
