import { compareCodePoints, deriveSeed } from '@xsb/core';
import { splitSystemId } from '@xsb/metrics';
import { discordantPairs, exactMcNemar, holmAdjust, pairedComparison } from '@xsb/stats';
import { BENCH_METRICS, isDeckMetric, isRubricMetric, metricValue } from '../bench-metrics';
import type { BenchRow } from '../schemas/bench-row';
import type { BenchComparison } from '../schemas/bench-summary';

export interface ComparisonSide {
  configuration: string;
  system_id: string;
}

export interface PlannedPair {
  kind: BenchComparison['kind'];
  a: ComparisonSide;
  b: ComparisonSide;
}

export interface CompareOptions {
  seed: number;
  resamples: number;
  confidence: number;
  diagBelow: number;
}

/**
 * The pairs a run compares, per configuration: every system against the reference, and each
 * generator's `audience_conditioned` against its `audience_agnostic` (unless that pair is already a
 * reference pair); then across configurations the ladder steps (rung k against k − 1) and the
 * leave-one-out pairs (`-<factor>` against `full`, so the difference is what the factor adds), per system.
 */
export function planPairs(input: {
  configurations: readonly string[];
  systems: readonly string[];
  reference: string | null;
  ladder: ReadonlyArray<{ from: string; to: string }>;
  leaveOneOut: ReadonlyArray<{ full: string; without: string }>;
}): PlannedPair[] {
  const pairs: PlannedPair[] = [];
  const seen = new Set<string>();
  const add = (pair: PlannedPair) => {
    const key = `${pair.a.configuration}|${pair.a.system_id}|${pair.b.configuration}|${pair.b.system_id}`;
    if (seen.has(key)) return;
    seen.add(key);
    pairs.push(pair);
  };
  for (const configuration of input.configurations) {
    if (input.reference !== null)
      for (const system of input.systems)
        if (system !== input.reference)
          add({
            kind: 'reference',
            a: { configuration, system_id: input.reference },
            b: { configuration, system_id: system },
          });
    for (const system of input.systems) {
      const { system: generator, condition } = splitSystemId(system);
      if (condition !== 'audience_agnostic' || generator === null) continue;
      const conditioned = `${generator}__audience_conditioned`;
      if (input.systems.includes(conditioned))
        add({
          kind: 'condition',
          a: { configuration, system_id: system },
          b: { configuration, system_id: conditioned },
        });
    }
  }
  for (const step of input.ladder)
    for (const system of input.systems)
      add({
        kind: 'ladder',
        a: { configuration: step.from, system_id: system },
        b: { configuration: step.to, system_id: system },
      });
  for (const pair of input.leaveOneOut)
    for (const system of input.systems)
      add({
        kind: 'loo',
        a: { configuration: pair.without, system_id: system },
        b: { configuration: pair.full, system_id: system },
      });
  return pairs;
}

const sideRows = (rows: readonly BenchRow[], side: ComparisonSide) =>
  rows.filter((row) => row.configuration === side.configuration && row.system_id === side.system_id);

/** Cases with at least one row without an error. */
const usableCases = (rows: readonly BenchRow[]) =>
  new Set(rows.filter((row) => row.error === null).map((row) => row.case));

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** One paired unit as `pairedComparison` reads it: its cluster (the case) and the two sides' values. */
type PairedUnit = Parameters<typeof pairedComparison>[0][number];

/** Paired units of a metric: (case, audience) for X+Slides metrics; the case for the deck's own (rubric, design). */
function unitsFor(a: readonly BenchRow[], b: readonly BenchRow[], metric: string): PairedUnit[] {
  const byCase = isDeckMetric(metric);
  const keyOf = (row: BenchRow) => (byCase ? row.case : `${row.case}\u0000${row.audience}`);
  const collect = (rows: readonly BenchRow[]) => {
    const values = new Map<string, { cluster: string; values: number[] }>();
    for (const row of rows) {
      const value = metricValue(row, metric);
      if (value === null) continue;
      const key = keyOf(row);
      const entry = values.get(key) ?? { cluster: row.case, values: [] };
      entry.values.push(value);
      values.set(key, entry);
    }
    return values;
  };
  const left = collect(a);
  const right = collect(b);
  const units: PairedUnit[] = [];
  for (const key of [...left.keys()].sort(compareCodePoints)) {
    const other = right.get(key);
    if (!other) continue;
    const mine = left.get(key)!;
    // A deck metric's unit is the case: the mean over its rows (an agnostic deck's audiences share one score).
    units.push({ cluster: mine.cluster, a: mean(mine.values), b: mean(other.values) });
  }
  return units;
}

/**
 * Paired binary units for McNemar: for coverage, the included probes of each shared (case, audience)
 * (probes included on both sides); for rubric metrics, the judged items (yes against no / not
 * applicable) of the metric's dimensions. A unit is counted once per (deck A, deck B, probe or item),
 * so an agnostic deck scored for three audiences does not count its answer three times.
 */
function binaryPairs(
  a: readonly BenchRow[],
  b: readonly BenchRow[],
  metric: string,
): Array<[boolean, boolean]> | null {
  const rubric = isRubricMetric(metric);
  if (metric !== 'coverage' && !rubric) return null;
  const prefix = metric === 'rubric_total' ? '' : `${metric.slice('rubric.'.length)}.`;
  const byUnit = new Map<string, BenchRow>();
  for (const row of b) if (row.error === null) byUnit.set(`${row.case}\u0000${row.audience}`, row);
  const pairs = new Map<string, [boolean, boolean]>();
  for (const left of a) {
    if (left.error !== null) continue;
    const right = byUnit.get(`${left.case}\u0000${left.audience}`);
    if (!right) continue;
    const decks = `${left.deck}\u0000${right.deck}`;
    if (rubric) {
      if (!left.rubric || !right.rubric || left.rubric.error !== null || right.rubric.error !== null)
        continue;
      for (const [item, verdict] of Object.entries(left.rubric.items)) {
        if (!item.startsWith(prefix)) continue;
        const other = right.rubric.items[item];
        const decided = (v: string | undefined) => v === 'yes' || v === 'no' || v === 'not_applicable';
        if (!decided(verdict) || !decided(other)) continue;
        pairs.set(`${decks}\u0000${item}`, [verdict === 'yes', other === 'yes']);
      }
      continue;
    }
    const leftProbes = left.units?.probes ?? {};
    const rightProbes = right.units?.probes ?? {};
    for (const [probe, covered] of Object.entries(leftProbes)) {
      const other = rightProbes[probe];
      if (other === undefined) continue;
      pairs.set(`${decks}\u0000${left.case}\u0000${probe}`, [covered, other]);
    }
  }
  return [...pairs.values()];
}

/** One metric of one pair: everything of a comparison but which pair it is (and Holm, set over a whole set). */
export type SideComparison = Pick<
  BenchComparison,
  | 'metric'
  | 'n_cases'
  | 'n_units'
  | 'mean_diff'
  | 'ci_low'
  | 'ci_high'
  | 'sd_case_diff'
  | 'mde'
  | 'mcnemar'
  | 'holm_p'
  | 'verdict'
  | 'diag'
  | 'missing_cases'
  | 'seed'
>;

/**
 * B − A for every metric with a shared unit, over the cases both sides have: the mean paired
 * difference with its cluster bootstrap interval (cluster = case), verdict, diag flag and MDE, the
 * exact McNemar test on paired binary units and the missing cases of either side. `seedKey` names
 * the pair: each metric's bootstrap seed is `deriveSeed(seed, "<seedKey>|<metric>")`, so adding a
 * comparison changes no other interval. `holm_p` stays null (see `applyHolm`).
 */
export function compareSides(
  a: readonly BenchRow[],
  b: readonly BenchRow[],
  seedKey: string,
  options: CompareOptions,
): SideComparison[] {
  const casesA = usableCases(a);
  const casesB = usableCases(b);
  const missing = {
    only_a: [...casesA].filter((c) => !casesB.has(c)).sort(compareCodePoints),
    only_b: [...casesB].filter((c) => !casesA.has(c)).sort(compareCodePoints),
  };
  const comparisons: SideComparison[] = [];
  for (const metric of BENCH_METRICS) {
    const units = unitsFor(a, b, metric);
    if (units.length === 0) continue;
    const seed = deriveSeed(options.seed, `${seedKey}|${metric}`);
    const result = pairedComparison(units, {
      seed,
      resamples: options.resamples,
      confidence: options.confidence,
    });
    const binary = binaryPairs(a, b, metric);
    const mcnemar =
      binary === null
        ? null
        : (() => {
            const { b: discordantB, c } = discordantPairs(binary);
            return exactMcNemar(discordantB, c);
          })();
    comparisons.push({
      metric,
      ...result,
      mcnemar: mcnemar ? { ...mcnemar } : null,
      holm_p: null,
      diag: result.n_cases < options.diagBelow,
      missing_cases: missing,
      seed,
    });
  }
  return comparisons;
}

/** Holm's adjustment over every McNemar test of the set, in place. */
export function applyHolm<T extends { mcnemar: BenchComparison['mcnemar']; holm_p: number | null }>(
  comparisons: readonly T[],
): void {
  const tested = comparisons.filter((comparison) => comparison.mcnemar !== null);
  holmAdjust(tested.map((comparison) => comparison.mcnemar!.p)).forEach((p, i) => {
    tested[i]!.holm_p = p;
  });
}

/**
 * Every planned pair × metric with a shared unit (`compareSides`), and Holm's adjustment over all
 * McNemar tests of the run.
 */
export function compareRows(
  rows: readonly BenchRow[],
  pairs: readonly PlannedPair[],
  options: CompareOptions,
): BenchComparison[] {
  const comparisons: BenchComparison[] = [];
  for (const pair of pairs) {
    const seedKey = `${pair.a.configuration}|${pair.a.system_id}|${pair.b.configuration}|${pair.b.system_id}`;
    for (const side of compareSides(sideRows(rows, pair.a), sideRows(rows, pair.b), seedKey, options))
      comparisons.push({ kind: pair.kind, a: { ...pair.a }, b: { ...pair.b }, ...side });
  }
  applyHolm(comparisons);
  return comparisons;
}
