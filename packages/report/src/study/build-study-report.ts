import { join, resolve } from 'node:path';
import { plural, readJson } from '@xsb/core';
import { type AlignRecord, alignRecordSchema, STUDY_FILES } from '@xsb/study';
import { escapeHtml } from '../html/escape-html';
import { renderHtmlDocument } from '../html/html-document';
import { countCell, numeric, renderTable, text } from '../html/html-table';
import { renderFacts, renderProblems, renderWarning, section } from '../html/sections';
import { intervalPlotSpec } from '../plots/interval-plots';
import { plotFigure } from '../plots/render-vega-lite';
import type { ReportResult } from '../report-options';
import { finishReport } from '../write-report';

export interface StudyReportOptions {
  /** The study folder, with align.json (`xsb study align`). */
  dir: string;
  out?: string;
}

const FAMILY_COLORS = {
  xslides: '#4e79a7',
  rubric: '#f28e2b',
  layout: '#59a14f',
  design: '#b07aa1',
  rank: '#e15759',
  holistic: '#76b7b2',
  people: '#555555',
};

const OFFLINE_NOTE =
  'Some evaluators rest on the offline judge (lexical): a smoke test of the pipeline, not a judge whose alignment means anything.';

const rhoCell = (value: number | null, low: number | null, high: number | null) =>
  numeric(
    value === null
      ? '–'
      : `${value.toFixed(3)}${low === null || high === null ? '' : ` [${low.toFixed(3)}, ${high.toFixed(3)}]`}`,
    value,
  );

async function evaluatorPlot(record: AlignRecord): Promise<string> {
  const points = [
    ...record.evaluators.flatMap((row) =>
      row.spearman === null
        ? []
        : [
            {
              label: `${row.evaluator}${row.offline ? ' (offline)' : ''}`,
              mean: row.spearman,
              low: row.ci_low ?? row.spearman,
              high: row.ci_high ?? row.spearman,
              group: row.family,
            },
          ],
    ),
    ...(record.human_ceiling.spearman === null
      ? []
      : [
          {
            label: 'human ceiling',
            mean: record.human_ceiling.spearman,
            low: record.human_ceiling.ci_low ?? record.human_ceiling.spearman,
            high: record.human_ceiling.ci_high ?? record.human_ceiling.spearman,
            group: 'people',
          },
        ]),
  ].sort((a, b) => b.mean - a.mean);
  if (points.length === 0) return '<p class="note">No evaluator has a value.</p>';
  return plotFigure(
    'alignment-plot',
    intervalPlotSpec(points, {
      xTitle: 'mean Spearman ρ with the annotators (95% bootstrap over cases)',
      groupTitle: 'family',
      colors: FAMILY_COLORS,
      domain: [-1, 1],
      reference: 0,
    }),
    'Per case and annotator, ρ between the evaluator’s scores of the decks and the annotator’s ranking; the mean over annotators, then over cases (PresentBench’s way). The human ceiling: each annotator against the mean rank of the others.',
  );
}

/**
 * `xsb report --html --study STUDY`: the alignment of every evaluator with the study's annotators (align.json),
 * as one self-contained page: what it rests on, a dot-and-interval plot, the evaluator table, the paired
 * comparisons and the rubric's dimension ablation.
 */
export async function buildStudyReport(options: StudyReportOptions): Promise<ReportResult> {
  const dir = resolve(options.dir);
  const record = await readJson(join(dir, STUDY_FILES.align), alignRecordSchema);
  const { seed, resamples, confidence } = record.bootstrap;
  const facts: Array<[string, string]> = [
    ['study', record.study],
    ['run', record.data_run],
    ['annotators', `${record.annotators.length}: ${record.annotators.join(', ')}`],
    ['cases answered', String(record.answered_cases)],
    [
      'human ceiling',
      `${record.human_ceiling.spearman?.toFixed(3) ?? '–'} (n = ${plural(record.human_ceiling.n_cases, 'case')} with two or more annotators)`,
    ],
    [
      "Kendall's W",
      `${record.kendall_w.w?.toFixed(3) ?? '–'} (n = ${plural(record.kendall_w.n_cases, 'case')})`,
    ],
    [
      'intervals',
      `${Math.round(confidence * 100)}% percentile bootstrap over cases, seed ${seed}, ${resamples} resamples`,
    ],
  ];
  const offline = record.evaluators.some((row) => row.offline);
  const body = [
    section(
      'measured',
      'What was measured',
      `${offline ? renderWarning(OFFLINE_NOTE) : ''}${renderFacts(facts)}`,
    ),
    renderProblems('problems', record.problems),
    section(
      'evaluators',
      `Evaluators (${record.evaluators.length})`,
      `${await evaluatorPlot(record)}<p class="note">${escapeHtml('Design metrics have no better direction: their ρ says which way people leaned.')}</p>${renderTable(
        {
          id: 'evaluator-table',
          rows: record.evaluators,
          search: true,
          filters: [{ key: 'family', label: 'family', value: (row) => row.family }],
          columns: [
            { label: 'evaluator', cell: (row) => text(row.evaluator) },
            { label: 'family', cell: (row) => text(row.family) },
            { label: 'judge', cell: (row) => text(`${row.judge ?? '–'}${row.offline ? ' (offline)' : ''}`) },
            { label: 'ρ [95% CI]', cell: (row) => rhoCell(row.spearman, row.ci_low, row.ci_high) },
            { label: 'n cases', cell: (row) => countCell(row.n_cases) },
            { label: 'all decks alike in', cell: (row) => countCell(row.constant_cases.length) },
          ],
        },
      )}`,
    ),
  ];
  if (record.comparisons.length > 0)
    body.push(
      section(
        'comparisons',
        'Is the most aligned evaluator really closer to people?',
        `<p class="note">B − A in per-case ρ, paired over the cases both have; real = the interval excludes 0.</p>${renderTable(
          {
            id: 'comparison-table',
            rows: record.comparisons,
            columns: [
              { label: 'A', cell: (c) => text(c.a) },
              { label: 'B', cell: (c) => text(c.b) },
              { label: 'n cases', cell: (c) => countCell(c.n_cases) },
              { label: 'mean diff [95% CI]', cell: (c) => rhoCell(c.mean_diff, c.ci_low, c.ci_high) },
              { label: 'verdict', cell: (c) => text(c.verdict ?? '–') },
            ],
          },
        )}`,
      ),
    );
  if (record.ablation.length > 0)
    body.push(
      section(
        'ablation',
        'Rubric dimension ablation (PresentBench Table 5)',
        `<p class="note">A deck's score is the mean of the listed dimensions' scores.</p>${renderTable({
          id: 'ablation-table',
          rows: record.ablation,
          columns: [
            { label: 'dimensions', cell: (row) => text(row.dimensions.join(' + '), row.dimensions.length) },
            { label: 'ρ [95% CI]', cell: (row) => rhoCell(row.spearman, row.ci_low, row.ci_high) },
            { label: 'n cases', cell: (row) => countCell(row.n_cases) },
          ],
        })}`,
      ),
    );
  const html = renderHtmlDocument({
    title: `Alignment with people — study ${record.study}`,
    subtitle: `${plural(record.annotators.length, 'annotator')}, ${plural(record.answered_cases, 'case')}, run ${record.data_run}`,
    toc: [
      ['measured', 'What was measured'],
      ['evaluators', 'Evaluators'],
      record.comparisons.length > 0 && ['comparisons', 'Comparisons'],
      record.ablation.length > 0 && ['ablation', 'Ablation'],
    ],
    body: body.join('\n'),
  });
  return finishReport(html, options.out, record.problems, { decks: 0, rendered: 0, cached: 0, without: 0 });
}
