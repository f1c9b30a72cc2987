import { basename, join, relative, resolve } from 'node:path';
import { readGitState } from '@xsb/bench';
import { compareCodePoints, deriveSeed } from '@xsb/core';
import { DEFAULT_BOOTSTRAP_RESAMPLES, DEFAULT_BOOTSTRAP_SEED } from '@xsb/metrics';
import {
  type DimensionScore,
  dimensionCounts,
  RUBRIC_DIMENSIONS,
  type RubricEvaluation,
  type RubricItemResult,
  type RubricVerdict,
  shownPaperTotal,
} from '@xsb/rubric';
import { bootstrapMeanInterval, type MeanInterval } from '@xsb/stats';
import { renderDeckDrillDown } from '../deck/deck-drill-down';
import { loadDecks } from '../deck/load-decks';
import { escapeHtml, safeId } from '../html/escape-html';
import { formatValue, meanIntervalCell } from '../html/format-number';
import { renderHtmlDocument } from '../html/html-document';
import { badge, type Column, countCell, numeric, renderTable, text, valueCell } from '../html/html-table';
import { renderFacts, renderProblems, renderWarning, section } from '../html/sections';
import { intervalPlotSpec, intervalPoints } from '../plots/interval-plots';
import { paletteFor } from '../plots/palette';
import { plotFigure } from '../plots/render-vega-lite';
import type { ReportOptions, ReportResult } from '../report-options';
import { describeGit, describeJudge, judgeFact } from '../run/run-header';
import { finishReport } from '../write-report';
import {
  findRubricSummaries,
  type RubricInstanceView,
  type RubricSummaryView,
  readRubricSummary,
} from './read-rubric-report-data';

export interface RubricReportOptions extends ReportOptions {
  /** A results folder of `xsb rubric run` (or a folder holding several, one per system). */
  dir: string;
}

export const RUBRIC_OFFLINE_WARNING =
  'Offline judge (lexical): only deterministic check items are decided; every LLM item is not_judged, so the totals and every dimension holding an LLM item read n/a, with their counts.';

const VERDICT_TONE: Record<RubricVerdict, 'good' | 'bad' | 'mid' | 'warn'> = {
  yes: 'good',
  no: 'bad',
  other: 'warn',
  not_applicable: 'mid',
  error: 'warn',
  not_judged: 'mid',
};

interface DimensionStats {
  system: string;
  total: MeanInterval;
  dimensions: Record<string, MeanInterval>;
  counts: Record<string, Omit<DimensionScore, 'score'>>;
  /** Evaluated instances with an item not judged: their totals are not a verdict on the deck. */
  notJudgedInstances: number;
}

const COUNT_KEYS = ['items', 'yes', 'no', 'other', 'not_applicable', 'error', 'not_judged'] as const;

function summedCounts(scores: readonly DimensionScore[]): Omit<DimensionScore, 'score'> {
  const sum = Object.fromEntries(COUNT_KEYS.map((key) => [key, 0])) as Omit<DimensionScore, 'score'>;
  for (const score of scores) for (const key of COUNT_KEYS) sum[key] += score[key];
  return sum;
}

/** A dimension (or total) with any item not judged has no mean: its judged few would read as a verdict. */
function dimensionStats(system: string, instances: readonly RubricInstanceView[]): DimensionStats {
  const interval = (name: string, values: number[]) =>
    bootstrapMeanInterval(values, {
      seed: deriveSeed(DEFAULT_BOOTSTRAP_SEED, `${system}|${name}`),
      resamples: DEFAULT_BOOTSTRAP_RESAMPLES,
    });
  const scored = instances.flatMap((instance) => (instance.paper ? [instance.paper] : []));
  const dimensions: Record<string, MeanInterval> = {};
  const counts: Record<string, Omit<DimensionScore, 'score'>> = {};
  for (const dimension of RUBRIC_DIMENSIONS) {
    counts[dimension] = summedCounts(scored.map((paper) => paper.dimensions[dimension]));
    const complete = counts[dimension].not_judged === 0;
    dimensions[dimension] = interval(
      dimension,
      complete
        ? scored.flatMap((paper) => {
            const score = paper.dimensions[dimension].score;
            return score === null ? [] : [score * 100];
          })
        : [],
    );
  }
  const notJudgedInstances = scored.filter((paper) => paper.not_judged_count > 0).length;
  const totals = scored.flatMap((paper) => {
    const total = shownPaperTotal(paper);
    return total === null || notJudgedInstances > 0 ? [] : [total];
  });
  return { system, total: interval('total', totals), dimensions, counts, notJudgedInstances };
}

/** n/a and why while items are not judged (`notJudged`), else the mean with its interval. */
function scoreCell(stat: MeanInterval, notJudged: string | null) {
  const html =
    notJudged === null
      ? meanIntervalCell(stat, 1)
      : `<b>n/a</b><br><span class="small muted">${escapeHtml(notJudged)}</span>`;
  return { html, sort: stat.mean, className: 'num' };
}

async function judgeSection(judge: string, summaries: readonly RubricSummaryView[]): Promise<string> {
  const id = safeId('judge', judge);
  const stats = summaries
    .filter((view) => view.summary.judge === judge)
    .map((view) => dimensionStats(view.system, view.instances));
  const systems = stats.map((entry) => entry.system);
  const colors = paletteFor(systems);
  const points = stats.flatMap((entry) =>
    (['total', ...RUBRIC_DIMENSIONS] as const).flatMap((name) => {
      const stat = name === 'total' ? entry.total : entry.dimensions[name]!;
      return intervalPoints(`${name} · ${entry.system} (n=${stat.n})`, stat, entry.system);
    }),
  );
  const plot =
    points.length > 0
      ? await plotFigure(
          `${id}-dimensions`,
          intervalPlotSpec(points, {
            xTitle: 'paper score, 0–100 (mean over instances, 95% bootstrap interval)',
            groupTitle: 'system',
            colors,
            domain: [0, 100],
          }),
          `Rubric dimension scores per system (judge ${judge}): s_i = satisfied items / N_i × 100 per instance, mean over instances with a score (n), percentile bootstrap over instances.`,
        )
      : '<p class="note">No dimension has a score under this judge (nothing was judged, or every dimension holds items not judged).</p>';
  const columns: Array<Column<DimensionStats>> = [
    { label: 'system', cell: (entry) => text(entry.system) },
    {
      label: 'total',
      cell: ({ total, notJudgedInstances: n }) =>
        scoreCell(total, n === 0 ? null : `${n} instance${n === 1 ? '' : 's'} with items not judged`),
    },
    ...RUBRIC_DIMENSIONS.map(
      (dimension): Column<DimensionStats> => ({
        label: dimension,
        cell: ({ dimensions, counts }) =>
          scoreCell(
            dimensions[dimension]!,
            counts[dimension]!.not_judged === 0 ? null : dimensionCounts(counts[dimension]!),
          ),
      }),
    ),
  ];
  return section(
    id,
    `Rubric scores — judge ${judge}`,
    `${judge === 'lexical' ? renderWarning(RUBRIC_OFFLINE_WARNING) : ''}${renderTable({ id: `${id}-table`, columns, rows: stats })}<div class="plots">${plot}</div>`,
  );
}

function itemTable(id: string, items: readonly RubricItemResult[]): string {
  return renderTable({
    id,
    rows: items,
    search: true,
    filters: [
      { key: 'dimension', label: 'dimension', value: (item) => item.dimension },
      { key: 'verdict', label: 'verdict', value: (item) => item.verdict },
    ],
    rowData: (item) => ({ slides: item.cited_slides.join(' '), label: `item ${item.key} (${item.verdict})` }),
    columns: [
      { label: 'item', cell: (item) => text(item.key) },
      { label: 'dimension', cell: (item) => text(item.dimension) },
      { label: 'kind', cell: (item) => text(item.check_id ? `${item.kind} (${item.check_id})` : item.kind) },
      {
        label: 'verdict',
        cell: (item) => ({ html: badge(item.verdict, VERDICT_TONE[item.verdict]), sort: item.verdict }),
      },
      {
        label: "judge's explanation",
        cell: (item) => ({
          html: `<div class="explanation">${escapeHtml(item.explanation ?? item.layout_check?.detail ?? '')}</div>`,
        }),
      },
      {
        label: 'cited slides',
        cell: (item) => text(item.cited_slides.join(', ') || '–', item.cited_slides[0] ?? null),
      },
    ],
  });
}

const PASSED_BADGE: Record<string, string> = {
  null: badge('undecidable', 'mid'),
  true: badge('passed', 'good'),
  false: badge('failed', 'bad'),
};

function layoutTable(id: string, evaluation: RubricEvaluation): string {
  const rows = evaluation.layout_checks.flatMap((check) =>
    (check.findings.length === 0 ? [{ slide: null, detail: check.detail }] : check.findings).map(
      (finding) => ({
        check: check.id,
        passed: check.passed,
        slide: finding.slide as number | null,
        detail: finding.detail,
      }),
    ),
  );
  return renderTable({
    id,
    rows,
    filters: [{ key: 'check', label: 'check', value: (row) => row.check }],
    rowData: (row) => ({
      slides: row.slide === null ? '' : String(row.slide),
      label: `${row.check} finding`,
    }),
    empty: 'No layout checks were run.',
    columns: [
      { label: 'check', cell: (row) => text(row.check) },
      {
        label: 'passed',
        cell: (row) => ({ html: PASSED_BADGE[String(row.passed)]!, sort: String(row.passed) }),
      },
      { label: 'slide', cell: (row) => numeric(row.slide === null ? '–' : String(row.slide), row.slide) },
      { label: 'finding', cell: (row) => text(row.detail) },
    ],
  });
}

async function readSummaries(files: string[], root: string) {
  const problems: string[] = [];
  const summaries: RubricSummaryView[] = [];
  for (const file of files) {
    try {
      summaries.push(await readRubricSummary(file, root));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  const instances = summaries.flatMap((view) => view.instances);
  for (const instance of instances)
    if (instance.problem)
      problems.push(`${instance.system} / ${instance.row.instance_id}: ${instance.problem}`);
  return { summaries, instances, problems };
}

function measuredSection(
  root: string,
  files: string[],
  judges: string[],
  instances: RubricInstanceView[],
): string {
  return section(
    'measured',
    'What was measured',
    `${judges.includes('lexical') ? renderWarning(RUBRIC_OFFLINE_WARNING) : ''}${renderFacts([
      ['results folder', `${basename(root)} (paths below are relative to it)`],
      [
        'summaries',
        files.length === 0
          ? 'none found (xsb_rubric_summary_<judge>.json)'
          : files.map((f) => relative(root, f) || f).join(', '),
      ],
      ['judges', judges.map((judge) => describeJudge(judgeFact('rubric items', judge))).join('; ') || 'none'],
      ['tau_a', 'not used: the rubric scores checklist items, not weighted probes'],
      ['git', describeGit({ ...readGitState([root]), atReportTime: true })],
      [
        'split',
        'none: rubric results are scored on every instance given (a bench run records its split and test-split openings)',
      ],
      [
        'instances',
        `${instances.length} rows: ${instances.filter((i) => i.evaluation).length} with an evaluation`,
      ],
      [
        'scores',
        'paper method (mean of the five dimension scores × 100); errors left out of the denominator (reported)',
      ],
      [
        'intervals',
        `95% percentile bootstrap over instances, seed ${DEFAULT_BOOTSTRAP_SEED} (derived per system and dimension), ${DEFAULT_BOOTSTRAP_RESAMPLES} resamples`,
      ],
    ])}`,
  );
}

function instancesSection(
  instances: RubricInstanceView[],
  summaries: RubricSummaryView[],
  drillIds: Map<RubricInstanceView, string>,
): string {
  return section(
    'instances',
    `Instances (${instances.length})`,
    renderTable({
      id: 'instances-table',
      rows: instances,
      search: true,
      filters: [
        { key: 'system', label: 'system', value: (i) => i.system },
        { key: 'category', label: 'category', value: (i) => i.row.category ?? 'unknown' },
        { key: 'status', label: 'status', value: (i) => i.row.status },
      ],
      columns: [
        { label: 'system', cell: (i) => text(i.system) },
        {
          label: 'judge',
          cell: (i) => text(summaries.find((v) => v.instances.includes(i))?.summary.judge ?? ''),
        },
        { label: 'instance', cell: (i) => text(i.row.instance_id) },
        { label: 'category', cell: (i) => text(i.row.category ?? '–') },
        { label: 'status', cell: (i) => text(i.row.status) },
        {
          label: 'paper total',
          cell: (i) =>
            i.row.not_judged_count > 0 ? numeric('n/a', null) : valueCell(i.row.paper_total_percent, 1),
        },
        { label: 'PresentBench total', cell: (i) => valueCell(i.row.presentbench_total_percent, 1) },
        { label: 'errors', cell: (i) => countCell(i.row.error_count) },
        { label: 'not judged', cell: (i) => countCell(i.row.not_judged_count) },
        {
          label: 'deck',
          cell: (i) => ({
            html: i.evaluation ? `<a href="#${drillIds.get(i)}">items &amp; slides</a>` : '–',
          }),
        },
      ],
    }),
  );
}

function deckDrillDown(
  instance: RubricInstanceView,
  id: string,
  decks: Awaited<ReturnType<typeof loadDecks>>['decks'],
  shown: (path: string) => string,
  width: number,
): string[] {
  if (!instance.evaluation || !instance.deckPath) return [];
  const evaluation = instance.evaluation;
  const verdicts = new Map<string, number>();
  for (const item of evaluation.items) verdicts.set(item.verdict, (verdicts.get(item.verdict) ?? 0) + 1);
  return [
    renderDeckDrillDown({
      id,
      title: `${instance.system} · ${instance.row.instance_id} (${evaluation.category})`,
      badges: badge(
        `paper total ${instance.paper && instance.paper.not_judged_count > 0 ? `n/a (${instance.paper.not_judged_count} items not judged)` : formatValue(instance.paper?.total_percent ?? null, 1)}`,
        'mid',
      ),
      facts: [
        ['deck', shown(instance.deckPath)],
        ['evaluation', instance.evaluationFile ? shown(instance.evaluationFile) : '–'],
        ['judge', evaluation.judge],
        [
          'slides',
          `${evaluation.slide_count} (${evaluation.judged_slide_count} judged${evaluation.truncated ? ', truncated' : ''})`,
        ],
        ['verdicts', [...verdicts].map(([verdict, count]) => `${verdict} ${count}`).join(', ')],
      ],
      loaded: decks.get(instance.deckPath),
      thumbnailWidth: width,
      sections: [
        `<h4>Items (${evaluation.items.length})</h4>`,
        itemTable(`${id}-items`, evaluation.items),
        `<h4>Layout checks (${evaluation.layout_checks.length})</h4>`,
        layoutTable(`${id}-layout`, evaluation),
      ],
    }),
  ];
}

/** `xsb report --html --rubric DIR`; judges are never mixed. */
export async function buildRubricReport(options: RubricReportOptions): Promise<ReportResult> {
  const root = resolve(options.dir);
  const files = await findRubricSummaries(root);
  const { summaries, instances, problems } = await readSummaries(files, root);
  const deckPaths = [...new Set(instances.flatMap((i) => (i.deckPath && i.evaluation ? [i.deckPath] : [])))];
  const { decks, counts, width } = await loadDecks(deckPaths, options, join(root, 'report_cache'));
  const judges = [...new Set(summaries.map((view) => view.summary.judge))].sort(compareCodePoints);
  const body = [measuredSection(root, files, judges, instances), renderProblems('problems', problems)];
  for (const judge of judges) body.push(await judgeSection(judge, summaries));
  const drillIds = new Map(instances.map((instance, index) => [instance, `deck-${index + 1}`]));
  body.push(instancesSection(instances, summaries, drillIds));
  const shown = (path: string) => (path.startsWith(`${root}/`) ? relative(root, path) : path);
  const drills = instances.flatMap((instance) =>
    deckDrillDown(instance, drillIds.get(instance)!, decks, shown, width),
  );
  body.push(
    section(
      'decks',
      `Decks (${drills.length})`,
      drills.join('\n') || '<p class="note">No evaluated deck.</p>',
    ),
  );
  const html = renderHtmlDocument({
    title: `xsb rubric report: ${basename(root)}`,
    subtitle: `${summaries.length} result summar${summaries.length === 1 ? 'y' : 'ies'} · ${instances.length} instances · judges ${judges.join(', ') || 'none'}`,
    toc: [
      ['measured', 'What was measured'],
      problems.length > 0 && ['problems', `Problems (${problems.length})`],
      ...judges.map((judge): [string, string] => [safeId('judge', judge), `scores (${judge})`]),
      ['instances', 'Instances'],
      ['decks', 'Decks'],
    ],
    body: body.join('\n'),
  });
  return finishReport(html, options.out, problems, counts);
}
