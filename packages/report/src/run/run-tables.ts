import { SUMMARY_METRICS } from '@xsb/metrics';
import { escapeHtml } from '../html/escape-html';
import { meanIntervalCell } from '../html/format-number';
import {
  badge,
  type Column,
  countCell,
  numeric,
  renderTable,
  type TableFilter,
  text,
  valueCell,
} from '../html/html-table';
import type { EvaluationView, ProbeView } from './read-run-report-data';
import type { GroupView } from './run-groups';

export function systemTable(id: string, groups: readonly GroupView[]): string {
  const columns: Array<Column<GroupView>> = [
    {
      label: 'system',
      cell: (group) => ({
        html: `<span class="nowrap">${escapeHtml(group.systemId)}</span>${group.thin ? ` ${badge('thin', 'warn')}` : ''}`,
        sort: group.systemId,
      }),
    },
    { label: 'decks', cell: (group) => countCell(group.rowCount) },
    {
      label: 'included probes (min/med/max)',
      cell: (group) =>
        group.includedProbes
          ? numeric(
              `${group.includedProbes.min} / ${group.includedProbes.median} / ${group.includedProbes.max}`,
              group.includedProbes.min,
            )
          : text('–'),
    },
    ...SUMMARY_METRICS.map(
      (metric): Column<GroupView> => ({
        label: metric,
        cell: (group) => {
          const stat = group.metric(metric);
          return { html: meanIntervalCell(stat), sort: stat?.mean ?? null, className: 'num' };
        },
      }),
    ),
  ];
  return renderTable({ id, columns, rows: groups });
}

export interface ProbeRow {
  evaluation: EvaluationView;
  view: ProbeView;
  deckId: string | null;
}

const coveredLabel = (view: ProbeView) =>
  view.score === null ? 'no score' : view.score.covered ? 'covered' : 'not covered';

function coveredBadge(view: ProbeView): string {
  if (view.score === null) return badge('no score', 'mid');
  return view.score.covered ? badge('covered', 'good') : badge('not covered', 'bad');
}

/** `withIdentity`: the run-wide table, with system and case, without the deck table's long columns. */
export function probeTable(id: string, rows: readonly ProbeRow[], withIdentity: boolean): string {
  const detail = !withIdentity;
  const columns: Array<Column<ProbeRow> | false> = [
    withIdentity && { label: 'system', cell: (row) => text(row.evaluation.systemId) },
    withIdentity && { label: 'case', cell: (row) => text(row.evaluation.caseLabel) },
    { label: 'audience', cell: (row) => text(row.evaluation.audience) },
    { label: 'probe', cell: (row) => text(row.view.probe.probe_id) },
    { label: 'question', cell: (row) => text(row.view.probe.question) },
    detail && { label: 'expected answer', cell: (row) => text(row.view.probe.answer) },
    detail && { label: 'domain', cell: (row) => text(row.view.domain) },
    detail && { label: 'weight', cell: (row) => valueCell(row.view.weight, 2) },
    {
      label: 'included',
      cell: (row) => ({
        html: row.view.included ? badge('included', 'mid') : '<span class="muted">below tau_a</span>',
        sort: row.view.included ? 1 : 0,
      }),
    },
    { label: 'covered', cell: (row) => ({ html: coveredBadge(row.view), sort: coveredLabel(row.view) }) },
    detail && { label: "judge's answer", cell: (row) => text(row.view.score?.answer ?? '') },
    {
      label: 'cited slide',
      cell: (row) => text(row.view.score?.cited_evidence || '–', row.view.citedSlides[0] ?? null),
    },
  ];
  const filters: Array<TableFilter<ProbeRow> | false> = [
    withIdentity && { key: 'system', label: 'system', value: (row) => row.evaluation.systemId },
    withIdentity && { key: 'case', label: 'case', value: (row) => row.evaluation.caseLabel },
    { key: 'audience', label: 'audience', value: (row) => row.evaluation.audience },
    { key: 'covered', label: 'covered', value: (row) => coveredLabel(row.view) },
    { key: 'included', label: 'included', value: (row) => (row.view.included ? 'included' : 'not included') },
  ];
  return renderTable({
    id,
    columns: columns.filter((column) => column !== false),
    rows,
    search: true,
    filters: filters.filter((filter) => filter !== false),
    rowData: (row) => ({
      slides: row.view.citedSlides.join(' '),
      label: `${row.view.probe.probe_id} (${row.evaluation.audience}, ${coveredLabel(row.view)})`,
      ...(row.deckId ? { deck: row.deckId } : {}),
    }),
    empty: 'No probes.',
  });
}

type EvaluationRow = { evaluation: EvaluationView; deckId: string | null };

export function evaluationTable(id: string, rows: readonly EvaluationRow[]): string {
  const metrics = ['coverage', 'efficiency_time', 'correctness', 'safe_efficiency_time'] as const;
  return renderTable({
    id,
    rows,
    search: true,
    filters: [
      { key: 'system', label: 'system', value: (row) => row.evaluation.systemId },
      { key: 'audience', label: 'audience', value: (row) => row.evaluation.audience },
      { key: 'case', label: 'case', value: (row) => row.evaluation.caseLabel },
    ],
    columns: [
      { label: 'system', cell: (row) => text(row.evaluation.systemId) },
      { label: 'audience', cell: (row) => text(row.evaluation.audience) },
      { label: 'case', cell: (row) => text(row.evaluation.caseLabel) },
      {
        label: 'included probes (covered)',
        cell: ({ evaluation }) => {
          const included = evaluation.probes.filter((probe) => probe.included);
          const covered = included.filter((probe) => probe.score?.covered).length;
          const count = evaluation.metrics?.included_probe_count ?? included.length;
          return numeric(`${count} (${covered})`, count);
        },
      },
      ...metrics.map(
        (name): Column<EvaluationRow> => ({
          label: name,
          cell: ({ evaluation }) => valueCell(evaluation.metrics?.[name] ?? null),
        }),
      ),
      {
        label: 'deck',
        cell: (row) => ({
          html: row.deckId
            ? `<a href="#${escapeHtml(row.deckId)}">slides</a>`
            : '<span class="muted">–</span>',
        }),
      },
    ],
  });
}
