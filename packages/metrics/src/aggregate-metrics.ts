import { join } from 'node:path';
import type { MetricSummary, MetricsGroupSummary, MetricsSummary, MissingJob } from '@xsb/core';
import { compareCodePoints, deriveSeed, isXsbError, XSB_VERSION } from '@xsb/core/basics';
import { bootstrapMeanInterval } from '@xsb/stats';
import { PROBE_DOMAINS, type ProbeDomain } from './classify-probe-domain';
import { computeDomainCoverage } from './compute-domain-coverage';
import { hasOfflineJudge, mergeJudges, OFFLINE_JUDGE_WARNING } from './describe-judges';
import type { EvaluationMetricReader } from './evaluation-metric-reader';
import { readEvaluationInputs } from './recompute-evaluation-metrics';
import type { MetricRow, SkippedMetricFile } from './scan-metric-files';

/** The bootstrap seed and resample count of stage 7 when the caller gives none (recorded in summary.json). */
export const DEFAULT_BOOTSTRAP_SEED = 20_240_607;
export const DEFAULT_BOOTSTRAP_RESAMPLES = 2000;

/** Row-level metrics summarised per group, in report order. */
export const SUMMARY_METRICS = [
  'coverage',
  'efficiency_time',
  'efficiency_slide',
  'efficiency_word',
  'correctness',
  'safe_efficiency_time',
] as const;

export const domainMetricName = (domain: ProbeDomain): string => `domain_coverage.${domain}`;

/**
 * A group whose median deck rests on fewer included probes than this is marked `thin`: its coverage
 * moves in steps of a tenth or more per probe, too coarse to rank systems on.
 */
export const THIN_BELOW_PROBES = 10;

/** Why `missing_jobs` is null in a summary made from folders rather than from a run. */
export const MISSING_JOBS_UNKNOWN_NOTE =
  'aggregated from folders, not from a run: jobs without metrics cannot be known (aggregate a run to list them)';

export interface AggregateOptions {
  seed?: number;
  resamples?: number;
  confidence?: number;
  /**
   * The run's evaluation jobs that have no metrics.json (see `findMissingEvaluationJobs` of
   * @xsb/eval). Unset when aggregating folders that are not a run: the summary then says that
   * missing jobs cannot be known.
   */
  missingJobs?: readonly MissingJob[];
  /** Cases whose finished probe bank is empty (`listEmptyProbeBanks`); recorded as `empty_probe_banks`. */
  emptyProbeBanks?: readonly string[];
  /** Lines on banks whose questions are not in the source's language; recorded as `probe_language_notes`. */
  probeLanguageNotes?: readonly string[];
  /**
   * Metrics other stages wrote into the evaluation folders (e.g. @xsb/design's `designMetricReader`), each
   * family summarised where some folder has its file and listed in `metric_families`.
   */
  readers?: readonly EvaluationMetricReader[];
}

function median(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** min / median / max of the included-probe counts of a group's decks. */
function probeCountStats(members: readonly MetricRow[]): MetricsGroupSummary['included_probe_count'] {
  const counts = members.map((row) => row.metrics.included_probe_count).sort((a, b) => a - b);
  if (counts.length === 0) return null;
  return { min: counts[0]!, median: median(counts), max: counts.at(-1)! };
}

const distinctSorted = (values: Iterable<number>) => [...new Set(values)].sort((a, b) => a - b);

/** Per audience, the cases some group of that audience has and this group lacks. */
function missingCasesByGroup(groups: readonly MetricsGroupSummary[]): string[][] {
  const casesByAudience = new Map<string, Set<string>>();
  for (const group of groups) {
    const cases = casesByAudience.get(group.audience) ?? new Set<string>();
    for (const caseLabel of group.cases) cases.add(caseLabel);
    casesByAudience.set(group.audience, cases);
  }
  return groups.map((group) =>
    [...casesByAudience.get(group.audience)!].filter((c) => !group.cases.includes(c)).sort(compareCodePoints),
  );
}

type DomainValues = Record<ProbeDomain, number | null>;

/** Domain-wise coverage of one evaluation row, recomputed from its probe, weight and score files. */
async function domainCoverageOf(row: MetricRow): Promise<DomainValues | null> {
  if (!row.evaluationDir) return null;
  const inputs = await readEvaluationInputs(row.evaluationDir);
  const coverage = computeDomainCoverage({ ...inputs, audience: row.audience, tauA: row.metrics.tau_a });
  return Object.fromEntries(PROBE_DOMAINS.map((d) => [d, coverage[d].coverage])) as DomainValues;
}

const finiteOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

function metricValue(row: MetricRow, metric: string): number | null {
  return finiteOrNull((row.metrics as Record<string, unknown>)[metric]);
}

/** Domain-wise coverage of every row; a row whose inputs cannot be read gets none and a skip line. */
async function readDomainValues(
  rows: readonly MetricRow[],
): Promise<{ domainValues: Map<MetricRow, DomainValues | null>; skipped: SkippedMetricFile[] }> {
  const skipped: SkippedMetricFile[] = [];
  const domainValues = new Map<MetricRow, DomainValues | null>();
  for (const row of rows) {
    try {
      domainValues.set(row, await domainCoverageOf(row));
    } catch (error) {
      if (!isXsbError(error)) throw error;
      domainValues.set(row, null);
      skipped.push({ file: row.file, reason: `domain coverage not computed: ${error.message}` });
    }
  }
  return { domainValues, skipped };
}

type FamilyValues = Map<MetricRow, Record<string, number | null>>;

/**
 * Every reader's values per row, under `<family>.<metric>`; the families some row had, with their row
 * counts; a file a reader cannot read is a skip line naming it, and its row has no values of that family.
 */
async function readFamilyValues(
  rows: readonly MetricRow[],
  readers: readonly EvaluationMetricReader[],
): Promise<{
  values: FamilyValues;
  families: NonNullable<MetricsSummary['metric_families']>;
  skipped: SkippedMetricFile[];
}> {
  const values: FamilyValues = new Map(rows.map((row) => [row, {}]));
  const families: NonNullable<MetricsSummary['metric_families']> = [];
  const skipped: SkippedMetricFile[] = [];
  for (const reader of readers) {
    let found = 0;
    for (const row of rows) {
      if (!row.evaluationDir) continue;
      try {
        const read = await reader.read(row.evaluationDir);
        if (read === null) continue;
        found += 1;
        for (const metric of reader.metrics)
          values.get(row)![`${reader.family}.${metric}`] = read[metric] ?? null;
      } catch (error) {
        if (!isXsbError(error)) throw error;
        skipped.push({ file: join(row.evaluationDir, reader.file), reason: error.message });
      }
    }
    if (found > 0)
      families.push({
        family: reader.family,
        file: reader.file,
        description: reader.description,
        metrics: reader.metrics.map((metric) => `${reader.family}.${metric}`),
        rows: found,
      });
  }
  return { values, families, skipped };
}

/** Rows grouped by (system_id, audience), groups in key order, rows in input order. */
export function groupMetricRows(rows: readonly MetricRow[]): Array<{ key: string; members: MetricRow[] }> {
  const groups = new Map<string, MetricRow[]>();
  for (const row of rows) {
    const key = `${row.system_id}\u0000${row.audience}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.keys()].sort(compareCodePoints).map((key) => ({ key, members: groups.get(key)! }));
}

interface Bootstrap {
  seed: number;
  resamples: number;
  confidence: number;
}

/**
 * One group's summary: per metric the mean over rows with a value, its bootstrap interval and the
 * null count. Each (group, metric) has its own PRNG stream derived from the seed and its name, so
 * adding a group never changes another group's interval. `missing_cases` is left empty here.
 */
export function summarizeGroup(
  group: { key: string; members: readonly MetricRow[] },
  domainValues: ReadonlyMap<MetricRow, DomainValues | null>,
  bootstrap: Bootstrap,
  families: { names: readonly string[]; values: ReadonlyMap<MetricRow, Record<string, number | null>> } = {
    names: [],
    values: new Map(),
  },
): MetricsGroupSummary {
  const { key, members } = group;
  const first = members[0]!;
  const metricNames = [...SUMMARY_METRICS, ...PROBE_DOMAINS.map(domainMetricName), ...families.names];
  const metrics: MetricSummary[] = metricNames.map((metric) => {
    const values: number[] = [];
    for (const row of members) {
      const value = metric.startsWith('domain_coverage.')
        ? (domainValues.get(row)?.[metric.slice('domain_coverage.'.length) as ProbeDomain] ?? null)
        : families.names.includes(metric)
          ? finiteOrNull(families.values.get(row)?.[metric])
          : metricValue(row, metric);
      if (value !== null) values.push(value);
    }
    const interval = bootstrapMeanInterval(values, {
      seed: deriveSeed(bootstrap.seed, `${key}\u0000${metric}`),
      resamples: bootstrap.resamples,
      confidence: bootstrap.confidence,
    });
    return { metric, null_count: members.length - values.length, ...interval };
  });
  const probeCounts = probeCountStats(members);
  const judges = mergeJudges(members.map((row) => row.metrics.judges ?? []));
  return {
    system_id: first.system_id,
    system: first.system,
    condition: first.condition,
    audience: first.audience,
    row_count: members.length,
    cases: members.map((row) => row.case_label).sort(compareCodePoints),
    // filled by the caller, once every group of the audience is known
    missing_cases: [],
    tau_a: distinctSorted(members.map((row) => row.metrics.tau_a)),
    included_probe_count: probeCounts,
    thin: probeCounts !== null && probeCounts.median < THIN_BELOW_PROBES,
    judges,
    offline_judges: hasOfflineJudge(judges),
    metrics,
  };
}

/**
 * Stage 7: groups rows by (system_id, audience) and reports, per metric, the mean over rows with a
 * value, a seeded percentile-bootstrap interval and n (see {@link summarizeGroup}).
 */
export async function aggregateMetrics(
  rows: readonly MetricRow[],
  skipped: readonly SkippedMetricFile[],
  options: AggregateOptions = {},
): Promise<MetricsSummary> {
  const seed = options.seed ?? DEFAULT_BOOTSTRAP_SEED;
  const resamples = options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  const { domainValues, skipped: extraSkipped } = await readDomainValues(rows);
  const read = await readFamilyValues(rows, options.readers ?? []);
  const familyNames = read.families.flatMap((family) => family.metrics);
  const summaries = groupMetricRows(rows).map((group) =>
    summarizeGroup(
      group,
      domainValues,
      { seed, resamples, confidence },
      { names: familyNames, values: read.values },
    ),
  );
  const missingCases = missingCasesByGroup(summaries);
  const judges = mergeJudges(rows.map((row) => row.metrics.judges ?? []));
  const offline = hasOfflineJudge(judges);
  return {
    stage: 'aggregate',
    xsb_version: XSB_VERSION,
    judges,
    rows_without_judges: rows.filter((row) => !row.metrics.judges || row.metrics.judges.length === 0).length,
    offline_judges: offline,
    offline_warning: offline ? OFFLINE_JUDGE_WARNING : null,
    tau_a: distinctSorted(rows.map((row) => row.metrics.tau_a)),
    bootstrap: { seed, resamples, confidence, method: 'percentile bootstrap of the mean, mulberry32 PRNG' },
    thin_below: THIN_BELOW_PROBES,
    row_count: rows.length,
    groups: summaries.map((group, index) => ({ ...group, missing_cases: missingCases[index]! })),
    rows: rows.map((row) => ({
      system_id: row.system_id,
      audience: row.audience,
      case_label: row.case_label,
      origin: row.origin,
      file: row.file,
    })),
    skipped: [...skipped, ...extraSkipped, ...read.skipped],
    ...(options.missingJobs
      ? { missing_jobs: [...options.missingJobs] }
      : { missing_jobs: null, missing_jobs_note: MISSING_JOBS_UNKNOWN_NOTE }),
    ...(options.emptyProbeBanks ? { empty_probe_banks: [...options.emptyProbeBanks] } : {}),
    ...(options.probeLanguageNotes ? { probe_language_notes: [...options.probeLanguageNotes] } : {}),
    ...(read.families.length > 0 ? { metric_families: read.families } : {}),
  };
}
