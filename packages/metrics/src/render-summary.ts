import type {
  JudgeDescriptor,
  MetricSummary,
  MetricsGroupSummary,
  MetricsSummary,
  MissingJob,
} from '@xsb/core';
import { compareCodePoints, emptyProbeBankNote } from '@xsb/core/basics';
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
  'tau_a',
  'judges',
  'offline_judges',
  'bootstrap_seed',
  'bootstrap_resamples',
  'included_probes_min',
  'included_probes_median',
  'included_probes_max',
  'thin',
  'missing_cases',
] as const;

/** `stage=id` pairs joined by `;` (ids may hold spaces or commas; the cell is quoted then). */
const judgesCell = (judges: readonly JudgeDescriptor[]) =>
  judges.map((judge) => `${judge.stage}=${judge.id}`).join(';');

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `summary.csv`: one line per (system_id, audience, metric); empty cells for null values. Every line
 * carries what its number rests on: tau_a, the judges (`stage=id;…`), whether one is offline, the
 * bootstrap seed and resamples, the group's included probes per deck and whether it is thin, and the
 * cases other systems of the audience have and it lacks (space-separated).
 */
export function renderSummaryCsv(summary: MetricsSummary): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const group of summary.groups) {
    const provenance = {
      tau_a: group.tau_a.join(' '),
      judges: judgesCell(group.judges),
      offline_judges: group.offline_judges,
      bootstrap_seed: summary.bootstrap.seed,
      bootstrap_resamples: summary.bootstrap.resamples,
      included_probes_min: group.included_probe_count?.min,
      included_probes_median: group.included_probe_count?.median,
      included_probes_max: group.included_probe_count?.max,
      thin: group.thin,
      missing_cases: group.missing_cases.join(' '),
    };
    for (const metric of group.metrics) {
      const record: Record<string, unknown> = { ...group, ...metric, ...provenance };
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

/** A judge as a reader needs it: its id, what kind it is, and the model or replay store behind it. */
function describeJudgeForReader(judge: JudgeDescriptor): string {
  const id = `\`${judge.id}\``;
  switch (judge.kind) {
    case 'offline':
      return `${id} (offline, no model)`;
    case 'model':
      return `${id} (model ${judge.model ?? judge.id})`;
    default:
      return `${id} (${judge.kind} store ${judge.replay_store ?? '?'}, model label ${judge.model_label ?? 'unknown'})`;
  }
}

/** `lexical (offline, no model) for probes, weights; replay:… for answerability, correctness`. */
export function formatJudges(judges: readonly JudgeDescriptor[]): string {
  const stagesById = new Map<string, { judge: JudgeDescriptor; stages: string[] }>();
  for (const judge of judges) {
    const entry = stagesById.get(judge.id) ?? { judge, stages: [] };
    entry.stages.push(judge.stage);
    if (!entry.judge.model_label && judge.model_label) entry.judge = judge;
    stagesById.set(judge.id, entry);
  }
  return [...stagesById.values()]
    .map(({ judge, stages }) => `${describeJudgeForReader(judge)} for ${stages.join(', ')}`)
    .join('; ');
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** A list shortened for a table cell: the first `limit` items, then "and k more". */
function shortList(items: readonly string[], limit = 5): string {
  return items.length <= limit
    ? items.join(', ')
    : `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

/**
 * What every number below rests on, in a few lines: the judges (with the model or replay store and
 * its label), tau_a, the bootstrap, the offline warning when an offline judge is among them, thin
 * groups and the jobs of the run that have no row. `report.md`, `xsb demo` and `xsb aggregate` open
 * with these lines.
 */
export function renderSummaryHeader(summary: MetricsSummary): string[] {
  const { seed, resamples, confidence } = summary.bootstrap;
  const unjudged =
    summary.rows_without_judges > 0
      ? `; ${plural(summary.rows_without_judges, 'row')} ${summary.rows_without_judges === 1 ? 'records' : 'record'} no judge`
      : '';
  const judges = summary.judges.length > 0 ? formatJudges(summary.judges) : 'none recorded';
  const tauA =
    summary.tau_a.length === 0
      ? 'no rows'
      : summary.tau_a.length === 1
        ? String(summary.tau_a[0])
        : `${summary.tau_a.join(', ')} (MIXED: rows were scored at different thresholds, so groups are not comparable)`;
  const lines = [
    `- judges: ${judges}${unjudged}`,
    `- tau_a: ${tauA}; bootstrap: ${resamples} resamples, seed ${seed}, ${Math.round(confidence * 100)}% percentile interval`,
  ];
  if (summary.offline_warning) lines.push(`- WARNING: ${summary.offline_warning}`);
  const thin = summary.groups.filter((group) => group.thin).length;
  if (thin > 0)
    lines.push(
      `- thin: ${thin} of ${plural(summary.groups.length, 'group')} rest on a median of fewer than ` +
        `${summary.thin_below} probes per deck (see the probes/deck column)`,
    );
  if (summary.missing_jobs === null)
    lines.push(`- missing jobs: unknown (${summary.missing_jobs_note ?? 'no run'})`);
  else if (summary.missing_jobs.length > 0)
    lines.push(
      `- missing jobs: ${plural(summary.missing_jobs.length, 'evaluation job')} of the run ` +
        `${summary.missing_jobs.length === 1 ? 'has' : 'have'} no metrics.json ` +
        'and no row here (listed in summary.json and at the end of report.md)',
    );
  else lines.push('- missing jobs: none (every evaluation job of the run has metrics)');
  for (const caseLabel of summary.empty_probe_banks ?? []) lines.push(`- ${emptyProbeBankNote(caseLabel)}`);
  for (const note of summary.probe_language_notes ?? []) lines.push(`- ${note}`);
  return lines;
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
    '- probes/deck: how many probes reached tau_a per deck, median (min–max): what each coverage rests ' +
      `on; "thin" in notes: the median is under ${summary.thin_below}.`,
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
    '- notes: "thin" (see probes/deck); "n differs": the systems of one table were scored on different ' +
      'cases, so their means are not over the same decks.',
    ...(summary.metric_families?.length
      ? [
          '- after domain-wise coverage: metrics other stages wrote into the evaluation folders, a table per ' +
            'family named with its file; "higher is better" does not hold there: each says what its numbers mean.',
        ]
      : []),
  ];
}

/** `6 (4–9)`: median and range of a group's included probes per deck; one value when they agree. */
function probesCell(group: MetricsGroupSummary): string {
  const counts = group.included_probe_count;
  if (!counts) return '–';
  const median = Number.isInteger(counts.median) ? String(counts.median) : counts.median.toFixed(1);
  return counts.min === counts.max ? median : `${median} (${counts.min}–${counts.max})`;
}

/** The flags of a group's row: thin, other case sets than its neighbours, several tau_a values. */
function notesCell(group: MetricsGroupSummary, thinBelow: number): string {
  const notes: string[] = [];
  if (group.thin && group.included_probe_count)
    notes.push(`thin: median ${group.included_probe_count.median} probes/deck < ${thinBelow}`);
  if (group.missing_cases.length > 0) {
    const which = group.missing_cases.length === 1 ? 'case' : 'cases';
    notes.push(`n differs: ${which} ${shortList(group.missing_cases)} missing for system ${group.system_id}`);
  }
  if (group.tau_a.length > 1) notes.push(`tau_a mixed: ${group.tau_a.join(', ')}`);
  return notes.join('; ');
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
 * after what the numbers rest on ({@link renderSummaryHeader}) and a legend saying how to read them.
 */
export function renderResultsTables(summary: MetricsSummary): string[] {
  return [...renderSummaryHeader(summary), '', ...renderTablesBody(summary)];
}

function renderTablesBody(summary: MetricsSummary): string[] {
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
        ['system', 'n', 'probes/deck', ...SUMMARY_METRICS, 'notes'],
        groups.map((group) => [
          group.system_id,
          String(group.row_count),
          probesCell(group),
          ...SUMMARY_METRICS.map((name) => pick(group, name)),
          notesCell(group, summary.thin_below),
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
    for (const family of summary.metric_families ?? []) {
      lines.push(`${family.family} (${audience}; from ${family.file}): ${family.description}`, '');
      lines.push(
        ...table(
          ['system', ...family.metrics.map((metric) => metric.slice(family.family.length + 1))],
          groups.map((group) => [group.system_id, ...family.metrics.map((metric) => pick(group, metric))]),
        ),
        '',
      );
    }
  }
  return lines;
}

/** `system/condition/audience/case (status): reason [where]`, for reports and the CLI. */
export function formatMissingJob(job: MissingJob): string {
  const identity = [job.system, job.condition, job.audience, job.case_label]
    .map((part) => part ?? '?')
    .join('/');
  return `${identity} (${job.status.replace('_', ' ')}): ${job.reason} [${job.where}]`;
}

/** `report.md`: a readable table per audience, re-renderable from `summary.json` alone. */
export function renderSummaryReport(summary: MetricsSummary): string {
  const lines = [
    '# xsb results',
    '',
    ...renderSummaryHeader(summary),
    '',
    `${summary.row_count} metric rows (one per scored deck and audience) in ${summary.groups.length} ` +
      '(system, audience) groups.',
    '',
    ...renderTablesBody(summary),
  ];
  if (summary.missing_jobs && summary.missing_jobs.length > 0) {
    lines.push('## Missing jobs (no metrics.json, so no row above)', '');
    for (const job of summary.missing_jobs) lines.push(`- ${formatMissingJob(job)}`);
    lines.push('');
  }
  if (summary.skipped.length > 0) {
    lines.push('## Skipped files', '');
    for (const entry of summary.skipped) lines.push(`- ${entry.file}: ${entry.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}
