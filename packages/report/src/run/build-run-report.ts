import { join, relative } from 'node:path';
import { compareCodePoints, plural, RunLayout } from '@xsb/core';
import { SlideRenderStore } from '@xsb/decks';
import type { TopLevelSpec } from 'vega-lite';
import { renderDeckDrillDown } from '../deck/deck-drill-down';
import { type LoadedDeck, loadDecks } from '../deck/load-decks';
import { escapeHtml, safeId } from '../html/escape-html';
import { formatValue } from '../html/format-number';
import { renderHtmlDocument, tocOf } from '../html/html-document';
import { badge } from '../html/html-table';
import { renderFacts, renderProblems, renderWarning, section } from '../html/sections';
import { plotFigure } from '../plots/render-vega-lite';
import type { ReportOptions, ReportResult } from '../report-options';
import { THUMBNAIL_FORMATS, type ThumbnailSize } from '../thumbnails/slide-thumbnails';
import { finishReport } from '../write-report';
import { claimTable } from './claim-table';
import {
  DESIGN_NOTE,
  type DeckDesignRow,
  designTable,
  lowContrastText,
  referenceTable,
  slideContrastFlags,
  slideDesignTable,
} from './design-tables';
import { type EvaluationView, type RunReportData, readRunReportData } from './read-run-report-data';
import { groupViews } from './run-groups';
import { readRunHeader } from './run-header';
import { coveragePlotSpec, domainHeatmapSpec, efficiencyScatterSpec } from './run-plots';
import { evaluationTable, type ProbeRow, probeTable, systemTable } from './run-tables';

export interface RunReportOptions extends ReportOptions {
  dataDir: string;
  run: string;
}

export function runReportCacheDir(dataDir: string, run: string): string {
  return join(new RunLayout(dataDir).runDir(run), 'report_cache');
}

async function audienceSection(audience: string, data: RunReportData, offline: boolean): Promise<string> {
  const groups = groupViews(data.summary.groups.filter((group) => group.audience === audience));
  const id = safeId('audience', audience);
  const rows = data.evaluations.flatMap((e) =>
    e.audience === audience && e.metrics?.coverage != null && e.metrics.efficiency_time != null
      ? [
          {
            systemId: e.systemId,
            caseLabel: e.caseLabel,
            coverage: e.metrics.coverage,
            efficiency: e.metrics.efficiency_time,
          },
        ]
      : [],
  );
  const judgeNote = offline ? ' Offline judge (lexical): a smoke test, not a ranking.' : '';
  const figures: Array<[string, TopLevelSpec | null, string]> = [
    [
      'coverage',
      coveragePlotSpec(groups),
      `Audience coverage per system: dot = mean over decks, line = 95% bootstrap interval; n = decks with a value; thin = few included probes.${judgeNote}`,
    ],
    [
      'scatter',
      efficiencyScatterSpec(groups, rows),
      `efficiency_time against coverage: small dots are decks, large dots system means with their 95% intervals on both axes.`,
    ],
    [
      'domains',
      domainHeatmapSpec(groups),
      'Domain-wise coverage: mean over decks with included probes in the domain (n decks); grey = no included probe in that domain.',
    ],
  ];
  const plots: string[] = [];
  for (const [name, spec, caption] of figures)
    if (spec) plots.push(await plotFigure(`${id}-${name}`, spec, caption));
  const thin = groups.filter((group) => group.thin);
  const thinNote =
    thin.length > 0
      ? `<p class="note">${badge('thin', 'warn')} ${escapeHtml(thin.map((group) => group.systemId).join(', '))}: few included probes, so coverage moves a lot with each probe.</p>`
      : '';
  return section(
    id,
    `Audience: ${audience}`,
    `${systemTable(`${id}-systems`, groups)}${thinNote}<div class="plots">${plots.join('')}</div>`,
  );
}

function deckTitle(evaluations: readonly EvaluationView[]): string {
  const first = evaluations[0]!;
  const deckAudience = (first.manifest?.settings.job as Record<string, unknown> | undefined)?.deck_audience;
  const forWhom =
    typeof deckAudience === 'string' && deckAudience !== 'all'
      ? `deck for ${deckAudience}`
      : 'one deck for every audience';
  return `${first.systemId} · ${first.caseLabel} · ${forWhom}`;
}

function deckDrillDown(
  id: string,
  deckPath: string,
  loaded: LoadedDeck | undefined,
  evaluations: readonly EvaluationView[],
  dataDir: string,
  thumbnailWidth: number,
): string {
  const ordered = [...evaluations].sort((a, b) => compareCodePoints(a.audience, b.audience));
  const correctness = ordered.find((e) => e.correctness)?.correctness ?? null;
  const badges = ordered
    .map((e) =>
      badge(
        `${e.audience}: coverage ${formatValue(e.metrics?.coverage ?? null)} (${e.metrics?.included_probe_count ?? 0} probes)`,
        'mid',
      ),
    )
    .join(' ');
  const probeRows: ProbeRow[] = ordered.flatMap((evaluation) =>
    evaluation.probes.map((view) => ({ evaluation, view, deckId: id })),
  );
  const stats = ordered[0]?.deckStats;
  const design = ordered.find((e) => e.design)?.design ?? null;
  const facts: Array<[string, string]> = [
    ['deck', relative(dataDir, deckPath)],
    ['sha256', loaded?.sha256 ?? ordered[0]?.deckSha256 ?? 'unknown'],
    [
      'slides / visible words',
      stats ? `${stats.slide_count} / ${stats.visible_word_count} (parser ${stats.parser})` : 'unknown',
    ],
    [
      'correctness',
      correctness
        ? `${formatValue(correctness.correctness)} — ${correctness.claim_count} claims: ${correctness.supported_count} supported, ${correctness.contradicted_count} contradicted, ${correctness.unsupported_count} unsupported (judge ${correctness.judge}; ${correctness.formula})`
        : 'not scored',
    ],
  ];
  if (design)
    facts.push([
      'design (no judge)',
      `text under 3:1: ${lowContrastText(design)}; mean colorfulness ${formatValue(design.deck.colorfulness, 1)}, whitespace ${formatValue(design.deck.whitespace, 2)} (rendered ${design.render.width_px} px by ${design.render.renderer})`,
    ]);
  return renderDeckDrillDown({
    id,
    title: deckTitle(ordered),
    badges,
    facts,
    loaded,
    thumbnailWidth,
    ...(design ? { slideFlags: slideContrastFlags(design) } : {}),
    sections: [
      ...(design
        ? [
            `<h4>Design per slide (${plural(design.slides.length, 'slide')})</h4>`,
            slideDesignTable(`${id}-design`, design),
          ]
        : []),
      ...ordered
        .flatMap((e) => e.problems)
        .map((problem) => `<div class="problem">${escapeHtml(problem)}</div>`),
      `<h4>Probes (${probeRows.length} over ${plural(ordered.length, 'audience')})</h4>`,
      probeTable(`${id}-probes`, probeRows, false),
      `<h4>Claims${correctness ? ` (${correctness.claims.length})` : ''}</h4>`,
      correctness
        ? claimTable(`${id}-claims`, correctness.claims)
        : '<p class="note">Correctness was not scored for this deck.</p>',
    ],
  });
}

function deckDesignRows(
  deckPaths: readonly string[],
  byDeck: ReadonlyMap<string, readonly EvaluationView[]>,
  deckIds: ReadonlyMap<string, string>,
): DeckDesignRow[] {
  return deckPaths.flatMap((path) => {
    const evaluations = byDeck.get(path) ?? [];
    const withDesign = evaluations.find((e) => e.design);
    if (!withDesign?.design) return [];
    const reference = evaluations.find((e) => e.reference)?.reference ?? null;
    return [
      {
        deckId: deckIds.get(path)!,
        system: withDesign.systemId,
        caseLabel: withDesign.caseLabel,
        design: withDesign.design,
        reference,
      },
    ];
  });
}

function designSection(rows: readonly DeckDesignRow[]): string {
  const withReference = rows.filter((row) => row.reference !== null).length;
  const reference =
    withReference > 0
      ? `<h3>Against the reference decks (${plural(withReference, 'deck')})</h3><p class="note">Text metrics against the case's human-made reference deck: reported beside the design metrics, never mixed into them.</p>${referenceTable('reference-table', rows)}`
      : '';
  return section(
    'design',
    `Design (${plural(rows.length, 'deck')})`,
    `<p class="note">${escapeHtml(DESIGN_NOTE)}</p>${designTable('design-table', rows)}${reference}`,
  );
}

/** `xsb report --html --data D --run R`. */
export async function buildRunReport(options: RunReportOptions): Promise<ReportResult> {
  const data = await readRunReportData(options.dataDir, options.run);
  const header = await readRunHeader(data);
  const size = options.thumbnails ?? 'small';
  const byDeck = evaluationsByDeck(data.evaluations);
  const deckPaths = [...byDeck.keys()];
  const cacheDir = runReportCacheDir(options.dataDir, options.run);
  // The design metrics' renders (xsb design --data D --run R) make the thumbnails without LibreOffice.
  const renderStore = new SlideRenderStore(new RunLayout(options.dataDir).slideRendersDir(options.run));
  const { decks, counts, width } = await loadDecks(deckPaths, options, cacheDir, renderStore);
  const deckIds = new Map(deckPaths.map((path, index) => [path, `deck-${index + 1}`]));
  const deckIdOf = (evaluation: EvaluationView) =>
    evaluation.deckPath ? (deckIds.get(evaluation.deckPath) ?? null) : null;
  const audiences = [...new Set(data.summary.groups.map((group) => group.audience))].sort(compareCodePoints);
  const offline = header.offlineWarning !== null;
  const problems = runReportProblems(data, decks);
  const warning = header.offlineWarning ? renderWarning(header.offlineWarning) : '';
  const body = [
    section('measured', 'What was measured', `${warning}${renderFacts(header.facts)}`),
    renderProblems('problems', problems),
  ];
  for (const audience of audiences) body.push(await audienceSection(audience, data, offline));
  const evaluationRows = data.evaluations.map((evaluation) => ({ evaluation, deckId: deckIdOf(evaluation) }));
  body.push(
    section(
      'evaluations',
      `Evaluations (${evaluationRows.length})`,
      evaluationTable('evaluations-table', evaluationRows),
    ),
  );
  const probeRows = data.evaluations.flatMap((evaluation) =>
    evaluation.probes.map((view) => ({ evaluation, view, deckId: deckIdOf(evaluation) })),
  );
  body.push(
    section(
      'probes',
      `Probes (${probeRows.length})`,
      `<p class="note">Every probe of every evaluation. Click a row to open its deck and highlight the slide the judge cited.${offline ? ' Answers by the offline lexical judge.' : ''}</p>${probeTable('probes-table', probeRows, true)}`,
    ),
  );
  const designRows = deckDesignRows(deckPaths, byDeck, deckIds);
  if (designRows.length > 0) body.push(designSection(designRows));
  const drills = deckPaths.map((path) =>
    deckDrillDown(deckIds.get(path)!, path, decks.get(path), byDeck.get(path)!, options.dataDir, width),
  );
  body.push(
    section(
      'decks',
      `Decks (${deckPaths.length})`,
      `<p class="note">${escapeHtml(thumbnailNote(size, counts.without))}</p>${drills.join('\n')}`,
    ),
  );
  const html = renderHtmlDocument({
    title: `xsb run report: ${data.run}`,
    subtitle: runReportSubtitle(data, audiences.length, header.judges),
    toc: runReportToc(audiences, problems.length, designRows.length > 0),
    body: body.join('\n'),
  });
  return finishReport(html, options.out, problems, counts);
}

export function evaluationsByDeck(evaluations: readonly EvaluationView[]): Map<string, EvaluationView[]> {
  const byDeck = new Map<string, EvaluationView[]>();
  for (const evaluation of evaluations)
    if (evaluation.deckPath)
      byDeck.set(evaluation.deckPath, [...(byDeck.get(evaluation.deckPath) ?? []), evaluation]);
  return new Map([...byDeck].sort(([a], [b]) => compareCodePoints(a, b)));
}

function runReportProblems(data: RunReportData, decks: ReadonlyMap<string, LoadedDeck>): string[] {
  return [
    ...data.summary.skipped.map((skipped) => `${skipped.file}: skipped by stage 7 (${skipped.reason})`),
    ...data.evaluations.flatMap((e) => e.problems),
    ...[...decks.values()].flatMap((deck) => (deck.problem ? [`${deck.path}: ${deck.problem}`] : [])),
  ];
}

export function thumbnailNote(size: ThumbnailSize, decksWithout: number): string {
  return size === 'off'
    ? 'Thumbnails are off (--thumbnails off): slides show their text.'
    : `Thumbnails ${size} (${THUMBNAIL_FORMATS[size].width} px WebP)${decksWithout > 0 ? `; ${plural(decksWithout, 'deck')} without them (each says why)` : ''}.`;
}

function runReportSubtitle(
  data: RunReportData,
  audienceCount: number,
  judges: ReadonlyArray<{ id: string }>,
): string {
  const systems = new Set(data.summary.groups.map((g) => g.system_id)).size;
  const judgeIds = judges.map((j) => j.id).filter((v, i, a) => a.indexOf(v) === i);
  return `${plural(data.summary.row_count, 'evaluation')} · ${plural(audienceCount, 'audience')} · ${plural(systems, 'system')} · judges ${judgeIds.join(', ') || 'unknown'}`;
}

export function runReportToc(audiences: readonly string[], problemCount: number, withDesign = false) {
  return tocOf([
    ['measured', 'What was measured'],
    problemCount > 0 && ['problems', `Problems (${problemCount})`],
    ...audiences.map((audience): [string, string] => [safeId('audience', audience), audience]),
    ['evaluations', 'Evaluations'],
    ['probes', 'Probes'],
    withDesign && ['design', 'Design'],
    ['decks', 'Decks'],
  ]);
}
