import { join, resolve } from 'node:path';
import {
  BENCH_RUN_FILES,
  type BenchComparison,
  type BenchRow,
  type BenchStat,
  type BenchSummary,
  benchRowSchema,
  benchRunSchema,
  benchSummarySchema,
  referenceReason,
} from '@xsb/bench';
import { compareCodePoints, plural, readJson, readJsonlAll } from '@xsb/core';
import { escapeHtml, safeId } from '../html/escape-html';
import { formatValue, meanIntervalCell } from '../html/format-number';
import { renderHtmlDocument } from '../html/html-document';
import { badge, type Column, countCell, numeric, renderTable, text, valueCell } from '../html/html-table';
import { renderFacts, renderProblems, renderWarning, section } from '../html/sections';
import { barIntervalSpec } from '../plots/bar-plots';
import { intervalPlotSpec } from '../plots/interval-plots';
import { plotFigure } from '../plots/render-vega-lite';
import type { ReportOptions, ReportResult } from '../report-options';
import { OFFLINE_JUDGE_WARNING } from '../run/run-header';
import { finishReport } from '../write-report';

export interface BenchReportOptions extends ReportOptions {
  /** A bench run folder (`<data>/bench/runs/<run id>/`). */
  dir: string;
}

export const VERDICT_COLORS = {
  real: '#1a7f37',
  indeterminate: '#9a6700',
  'no evidence': '#8a94a6',
  'no value': '#c0362c',
};
const SHAPES = { result: 'circle', 'diag (few cases)': 'triangle-up' };

const verdictOf = (c: BenchComparison) => c.verdict ?? 'no value';
const sideLabel = (c: BenchComparison, which: 'a' | 'b', withConfiguration: boolean) =>
  withConfiguration ? `${c[which].configuration} · ${c[which].system_id}` : c[which].system_id;

function comparisonLabel(c: BenchComparison, withConfiguration: boolean): string {
  return `${sideLabel(c, 'b', withConfiguration)} − ${sideLabel(c, 'a', withConfiguration)} (${c.n_cases} cases)`;
}

/** One forest plot: a panel per metric (own x scale), a row per pair with its difference and interval. */
async function forestPlots(
  id: string,
  comparisons: readonly BenchComparison[],
  withConfiguration: boolean,
): Promise<string> {
  const points = comparisons.flatMap((c) =>
    c.mean_diff === null
      ? []
      : [
          {
            label: comparisonLabel(c, withConfiguration),
            mean: c.mean_diff,
            low: c.ci_low ?? c.mean_diff,
            high: c.ci_high ?? c.mean_diff,
            group: verdictOf(c),
            shape: c.diag ? 'diag (few cases)' : 'result',
            facet: c.metric,
          },
        ],
  );
  const missing = comparisons.length - points.length;
  if (points.length === 0) return '<p class="note">No comparison has a value.</p>';
  const figure = await plotFigure(
    id,
    intervalPlotSpec(points, {
      xTitle: 'mean difference B − A, 95% cluster-bootstrap interval',
      groupTitle: 'verdict',
      colors: VERDICT_COLORS,
      shapeTitle: 'diag',
      shapes: SHAPES,
      reference: 0,
    }),
    `One panel per metric; paired over the cases both sides have (n cases in each label). real = the interval excludes 0; diag = fewer cases than the run's diag_below (a diagnostic, not a result).${missing > 0 ? ` ${plural(missing, 'comparison')} without a value are in the table below.` : ''}`,
  );
  return `<div class="plots">${figure}</div>`;
}

function comparisonTable(
  id: string,
  comparisons: readonly BenchComparison[],
  withConfiguration: boolean,
): string {
  return renderTable({
    id,
    rows: comparisons,
    search: true,
    filters: [
      { key: 'kind', label: 'kind', value: (c) => c.kind },
      { key: 'metric', label: 'metric', value: (c) => c.metric },
      { key: 'verdict', label: 'verdict', value: verdictOf },
    ],
    columns: [
      { label: 'kind', cell: (c) => text(c.kind) },
      { label: 'B', cell: (c) => text(sideLabel(c, 'b', withConfiguration)) },
      { label: 'A', cell: (c) => text(sideLabel(c, 'a', withConfiguration)) },
      { label: 'metric', cell: (c) => text(c.metric) },
      { label: 'cases', cell: (c) => countCell(c.n_cases) },
      { label: 'units', cell: (c) => countCell(c.n_units) },
      {
        label: 'mean diff B − A [95% CI]',
        cell: (c) =>
          numeric(
            c.mean_diff === null
              ? '–'
              : `${formatValue(c.mean_diff)} [${formatValue(c.ci_low)}, ${formatValue(c.ci_high)}]`,
            c.mean_diff,
          ),
      },
      {
        label: 'McNemar b/c, p',
        cell: (c) => text(c.mcnemar ? `${c.mcnemar.b}/${c.mcnemar.c}, ${c.mcnemar.p.toPrecision(2)}` : '–'),
      },
      { label: 'Holm p', cell: (c) => numeric(c.holm_p === null ? '–' : c.holm_p.toPrecision(2), c.holm_p) },
      {
        label: 'verdict',
        cell: (c) => ({
          html: `${badge(verdictOf(c), c.verdict === 'real' ? 'good' : c.verdict === null ? 'bad' : 'mid')}${c.diag ? ` ${badge('diag', 'warn')}` : ''}`,
          sort: verdictOf(c),
        }),
      },
      { label: 'MDE', cell: (c) => valueCell(c.mde) },
    ],
  });
}

function statCell(stat: BenchStat | undefined): string {
  if (!stat) return '–';
  return `${meanIntervalCell(stat)}<span class="small muted"> · ${stat.n_cases} cases</span>`;
}

function systemTables(summary: BenchSummary): string {
  return summary.configurations
    .map((configuration) => {
      const columns: Array<Column<(typeof configuration.systems)[number]>> = [
        { label: 'system', cell: (system) => text(system.system_id) },
        {
          label: 'rows (failed)',
          cell: (system) => numeric(`${system.rows} (${system.failed_rows})`, system.rows),
        },
        ...summary.metrics.map(
          (metric): Column<(typeof configuration.systems)[number]> => ({
            label: metric,
            cell: (system) => ({
              html: statCell(system.overall[metric]),
              sort: system.overall[metric]?.mean ?? null,
              className: 'num',
            }),
          }),
        ),
      ];
      const on = Object.entries(configuration.factors)
        .filter(([, value]) => value)
        .map(([factor]) => factor);
      return `<h3>${escapeHtml(configuration.name)}</h3><p class="note">factors on: ${escapeHtml(on.join(', ') || 'none')}; settings digest ${escapeHtml(configuration.settings_digest.slice(0, 12))}; ${configuration.rows} rows (${configuration.failed_rows} failed)</p>${renderTable({ id: safeId('systems', configuration.name), columns, rows: configuration.systems })}`;
    })
    .join('\n');
}

function rowsTable(rows: readonly BenchRow[]): string {
  return renderTable({
    id: 'rows-table',
    rows,
    search: true,
    filters: [
      { key: 'configuration', label: 'configuration', value: (row) => row.configuration },
      { key: 'system', label: 'system', value: (row) => row.system_id },
      { key: 'audience', label: 'audience', value: (row) => row.audience },
      { key: 'case', label: 'case', value: (row) => row.case },
      { key: 'status', label: 'status', value: (row) => (row.error ? 'failed' : 'done') },
    ],
    columns: [
      { label: 'configuration', cell: (row) => text(row.configuration) },
      { label: 'system', cell: (row) => text(row.system_id) },
      { label: 'case', cell: (row) => text(row.case) },
      { label: 'audience', cell: (row) => text(row.audience) },
      { label: 'scene', cell: (row) => text(row.scene) },
      {
        label: 'included probes',
        cell: (row) =>
          numeric(
            String(row.metrics?.included_probe_count ?? '–'),
            row.metrics?.included_probe_count ?? null,
          ),
      },
      { label: 'coverage', cell: (row) => valueCell(row.metrics?.coverage) },
      { label: 'efficiency_time', cell: (row) => valueCell(row.metrics?.efficiency_time) },
      { label: 'correctness', cell: (row) => valueCell(row.metrics?.correctness) },
      { label: 'rubric total', cell: (row) => valueCell(row.rubric?.total, 1) },
      { label: 'deck', cell: (row) => text(row.deck ?? '–') },
      { label: 'error', cell: (row) => text(row.error ?? '') },
    ],
  });
}

/** The HTML report of one bench run (`xsb report --html --bench DIR`). */
export async function buildBenchReport(options: BenchReportOptions): Promise<ReportResult> {
  const dir = resolve(options.dir);
  const run = await readJson(join(dir, BENCH_RUN_FILES.run), benchRunSchema);
  const summary = await readJson(join(dir, BENCH_RUN_FILES.summary), benchSummarySchema);
  const problems: string[] = [];
  const rows = await readJsonlAll(join(dir, BENCH_RUN_FILES.rows), benchRowSchema).catch((error: Error) => {
    problems.push(error.message);
    return [] as BenchRow[];
  });
  for (const failure of run.input_failures) problems.push(`${failure.where}: ${failure.error}`);
  for (const error of summary.errors)
    problems.push(
      `row ${error.configuration} · ${error.system_id} · ${error.case} · ${error.audience}: ${error.error}`,
    );
  const offline = run.judges.some((judge) => judge.offline);
  const withConfiguration = summary.configurations.length > 1;
  const judges = run.judges
    .map(
      (judge) =>
        `${judge.id} (${judge.mode}${judge.replay_store ? `, store ${judge.replay_store}` : ''}${judge.model_label ? `, model ${judge.model_label}` : ''})`,
    )
    .join('; ');
  const facts: Array<[string, string]> = [
    ['bench run', `${run.run_id} (${run.status}${run.reason ? `: ${run.reason}` : ''})`],
    ['git', `${run.git.sha ?? 'not in a git repository'}${run.git.dirty ? ' (dirty)' : ''}`],
    ['pipeline run', run.pipeline_run],
    ['split', `${run.split} (${run.cases.length} cases)`],
    ['test-split openings', `${run.test_ledger_count} (bench/test_ledger.jsonl, when this run started)`],
    ['judges', judges],
    ['tau_a', String(run.tau_a)],
    [
      'intervals',
      `${Math.round(run.bootstrap.confidence * 100)}% cluster bootstrap over cases, seed ${run.bootstrap.seed}, ${run.bootstrap.resamples} resamples; diag below ${run.diag_below} cases`,
    ],
    [
      'configurations',
      `${run.config_spec}${run.factors.length > 0 ? ` over factors ${run.factors.join(', ')}` : ''}: ${run.configurations.map((c) => c.name).join(', ')}`,
    ],
    [
      'systems',
      `${run.systems.join(', ')}; reference ${run.reference ?? '–'}${run.reference && run.reference_from ? ` (${referenceReason(run.reference_from)})` : ''}`,
    ],
    ...summary.left_out_factors.map((left): [string, string] => [
      `left out factor ${left.factor}`,
      `${left.reason} (not run)`,
    ]),
    ['rows', `${run.rows.total} (${run.rows.failed} failed)`],
    [
      'judge calls',
      run.judge_calls
        ? `${run.judge_calls.measured} (distinct work ${run.judge_calls.distinct}; a naive run per configuration would make ${run.judge_calls.naive})`
        : 'not counted',
    ],
  ];
  const paired = summary.comparisons.filter((c) => c.kind === 'reference' || c.kind === 'condition');
  const ladder = summary.comparisons.filter((c) => c.kind === 'ladder');
  const loo = summary.comparisons.filter((c) => c.kind === 'loo');
  const body: string[] = [
    section(
      'measured',
      'What was measured',
      `${offline ? renderWarning(OFFLINE_JUDGE_WARNING) : ''}${renderFacts(facts)}`,
    ),
    renderProblems('problems', problems),
    section(
      'comparisons',
      `Paired comparisons (${paired.length})`,
      await forestPlots('forest', paired, withConfiguration),
    ),
  ];
  if (ladder.length > 0) {
    const steps = summary.ladder.map((step) => `${step.from} → ${step.to} (+${step.factor})`).join('; ');
    body.push(
      section(
        'ladder',
        `Ladder steps (${ladder.length})`,
        `<p class="note">${escapeHtml(steps)}</p>${await forestPlots('ladder-forest', ladder, true)}`,
      ),
    );
  }
  if (loo.length > 0) {
    const bars = loo.flatMap((c) =>
      c.mean_diff === null
        ? []
        : [
            {
              label: `${c.a.configuration} · ${c.b.system_id} · ${c.metric}`,
              value: c.mean_diff,
              low: c.ci_low,
              high: c.ci_high,
              group: verdictOf(c),
            },
          ],
    );
    body.push(
      section(
        'loo',
        `Leave-one-out deltas (${loo.length})`,
        bars.length === 0
          ? '<p class="note">No leave-one-out delta has a value.</p>'
          : await plotFigure(
              'loo-bars',
              barIntervalSpec(bars, {
                xTitle: 'full − without the factor (95% interval)',
                colors: VERDICT_COLORS,
                groupTitle: 'verdict',
              }),
              'Leave-one-out: what removing one factor costs (full B − without A), paired over cases.',
            ),
      ),
    );
  }
  if (summary.shapley) {
    const shapley = summary.shapley;
    const bars = shapley.factors.flatMap((f) =>
      f.value === null
        ? []
        : [{ label: f.factor, value: f.value, low: f.ci_low, high: f.ci_high, group: 'Shapley value' }],
    );
    body.push(
      section(
        'shapley',
        `Shapley values of ${shapley.metric}`,
        `${bars.length === 0 ? '<p class="note">Some subset has no value, so the Shapley values are undefined.</p>' : await plotFigure('shapley-bars', barIntervalSpec(bars, { xTitle: `Shapley value on ${shapley.metric} (95% case-bootstrap interval)`, colors: { 'Shapley value': '#4e79a7' }, groupTitle: '' }), `v(S): ${shapley.value_function}`)}${renderTable(
          {
            id: 'shapley-subsets',
            rows: shapley.subsets,
            columns: [
              { label: 'configuration', cell: (s) => text(s.configuration) },
              { label: 'factors', cell: (s) => text(s.factors.join(', ') || 'none') },
              { label: 'v(S)', cell: (s) => valueCell(s.value) },
              { label: 'n rows', cell: (s) => countCell(s.n) },
            ],
          },
        )}`,
      ),
    );
  }
  body.push(
    section(
      'comparison-table',
      'Every comparison',
      comparisonTable('comparisons-table', summary.comparisons, withConfiguration),
    ),
  );
  body.push(section('systems', 'Systems per configuration', systemTables(summary)));
  const sortedRows = [...rows].sort(
    (a, b) =>
      compareCodePoints(a.configuration, b.configuration) ||
      compareCodePoints(a.system_id, b.system_id) ||
      compareCodePoints(a.case, b.case) ||
      compareCodePoints(a.audience, b.audience),
  );
  body.push(
    section(
      'rows',
      `Rows (${rows.length})`,
      `<p class="note">Every (configuration, case, audience, system) row of per_row.jsonl. The slides of each deck are in the report of pipeline run ${escapeHtml(run.pipeline_run)} (xsb report --html --run ${escapeHtml(run.pipeline_run)}).</p>${rowsTable(sortedRows)}`,
    ),
  );
  const html = renderHtmlDocument({
    title: `xsb bench report: ${run.run_id}`,
    subtitle: `split ${run.split} · ${plural(run.cases.length, 'case')} · ${plural(run.configurations.length, 'configuration')} · ${plural(summary.comparisons.length, 'comparison')} · judges ${run.judges.map((j) => j.id).join(', ')}`,
    toc: [
      ['measured', 'What was measured'],
      problems.length > 0 && ['problems', `Problems (${problems.length})`],
      ['comparisons', 'Comparisons'],
      ladder.length > 0 && ['ladder', 'Ladder'],
      loo.length > 0 && ['loo', 'Leave-one-out'],
      Boolean(summary.shapley) && ['shapley', 'Shapley'],
      ['comparison-table', 'Table'],
      ['systems', 'Systems'],
      ['rows', 'Rows'],
    ],
    body: body.join('\n'),
  });
  return finishReport(html, options.out, problems, { decks: 0, rendered: 0, cached: 0, without: 0 });
}
