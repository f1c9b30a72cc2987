import { deriveSeed } from '@xsb/core';
import { kendallTauB, wilsonInterval } from '@xsb/stats';
import { EVALUATOR_IDS, evaluatorFamily, LENGTH_CONTROL_KINDS } from '../evaluator-ids';
import {
  PERTURBATION_KINDS,
  type PerturbationKind,
  type PerturbationRecord,
} from '../schemas/meta-perturbation';
import type { MetaScoreRow, MetaSensitivity } from '../schemas/meta-sensitivity';
import { pairedMeanChange } from '../stats/paired-mean-change';
import { scaleOf, toleranceFor, withinTolerance } from './tolerances';

export interface SensitivityInput {
  judge: string;
  offline: boolean;
  run: string;
  derivedRun: string;
  rows: readonly MetaScoreRow[];
  /** The perturbation record of every variant, keyed `<deck>\u0000<variant>`. */
  records: ReadonlyMap<string, PerturbationRecord>;
  skipped: readonly PerturbationRecord[];
  failures: ReadonlyArray<{ where: string; error: string }>;
  seed: number;
  resamples: number;
  confidence: number;
}

type Expectation = 'lower' | 'unchanged' | 'none';

interface Pair {
  deck: string;
  kind: PerturbationKind;
  severity: number;
  before: number;
  after: number;
  expected: Expectation;
}

function expectationOf(record: PerturbationRecord, evaluator: string): Expectation {
  if (record.expected.lower.includes(evaluator)) return 'lower';
  if (record.expected.unchanged.includes(evaluator)) return 'unchanged';
  return 'none';
}

const fellCount = (pairs: readonly Pair[]) => pairs.filter((pair) => pair.after < pair.before).length;
const stayedCount = (pairs: readonly Pair[], evaluator: string) =>
  pairs.filter((pair) => withinTolerance(pair.before, pair.after, toleranceFor(evaluator))).length;

const SEP = '\u0000';

/** Every score, keyed `<deck>␀<variant>␀<evaluator>`, and the first reason an evaluator gave no value. */
function indexScores(rows: readonly MetaScoreRow[]): {
  value: Map<string, number | null>;
  reasons: Map<string, string>;
} {
  const value = new Map<string, number | null>();
  const reasons = new Map<string, string>();
  for (const row of rows) {
    value.set(`${row.deck}${SEP}${row.variant}${SEP}${row.evaluator}`, row.value);
    if (row.value === null && row.reason && !reasons.has(row.evaluator))
      reasons.set(row.evaluator, row.reason);
  }
  return { value, reasons };
}

/** The (original, perturbed) score pairs per `<evaluator>␀<kind>␀<severity>` cell, and how many lacked a score. */
function pairScores(
  records: SensitivityInput['records'],
  value: ReadonlyMap<string, number | null>,
): Map<string, { pairs: Pair[]; missing: number }> {
  const pairsOf = new Map<string, { pairs: Pair[]; missing: number }>();
  for (const [key, record] of records) {
    const [deck, variant] = key.split(SEP) as [string, string];
    for (const evaluator of EVALUATOR_IDS) {
      const cell = `${evaluator}${SEP}${record.kind}${SEP}${record.severity}`;
      const entry = pairsOf.get(cell) ?? { pairs: [], missing: 0 };
      pairsOf.set(cell, entry);
      const before = value.get(`${deck}${SEP}original${SEP}${evaluator}`) ?? null;
      const after = value.get(`${deck}${SEP}${variant}${SEP}${evaluator}`) ?? null;
      if (before === null || after === null) {
        entry.missing += 1;
        continue;
      }
      const expected = expectationOf(record, evaluator);
      entry.pairs.push({ deck, kind: record.kind, severity: record.severity, before, after, expected });
    }
  }
  return pairsOf;
}

/** A cell's expectation: `lower` when any pair expects a fall, else `unchanged` when any expects stillness. */
function splitByExpectation(pairs: readonly Pair[]): {
  lower: Pair[];
  unchanged: Pair[];
  expected: Expectation;
} {
  const lower = pairs.filter((pair) => pair.expected === 'lower');
  const unchanged = pairs.filter((pair) => pair.expected === 'unchanged');
  const expected: Expectation = lower.length > 0 ? 'lower' : unchanged.length > 0 ? 'unchanged' : 'none';
  return { lower, unchanged, expected };
}

function severityCell(
  { input, evaluator, kind }: { input: SensitivityInput; evaluator: string; kind: PerturbationKind },
  severity: number,
  entry: { pairs: Pair[]; missing: number },
): MetaSensitivity['cells'][number] {
  const { confidence } = input;
  const { lower, unchanged, expected } = splitByExpectation(entry.pairs);
  const fellOver = expected === 'lower' ? lower : entry.pairs;
  const stayedOver = expected === 'none' ? entry.pairs : unchanged;
  return {
    evaluator,
    kind,
    severity,
    expected,
    n: entry.pairs.length,
    missing: entry.missing,
    fell: wilsonInterval(fellCount(fellOver), fellOver.length, confidence),
    stayed: wilsonInterval(stayedCount(stayedOver, evaluator), stayedOver.length, confidence),
    mean_change: pairedMeanChange(entry.pairs, {
      seed: deriveSeed(input.seed, `${evaluator}|${kind}|${severity}`),
      resamples: input.resamples,
      confidence,
    }),
  };
}

function summaryRow(
  { input, evaluator, kind }: { input: SensitivityInput; evaluator: string; kind: PerturbationKind },
  all: readonly Pair[],
): MetaSensitivity['summary'][number] {
  const { confidence } = input;
  const { lower, unchanged, expected } = splitByExpectation(all);
  const graded = expected === 'lower' ? lower : all;
  return {
    evaluator,
    kind,
    expected,
    sensitivity: wilsonInterval(fellCount(lower), lower.length, confidence),
    specificity: wilsonInterval(stayedCount(unchanged, evaluator), unchanged.length, confidence),
    graded_tau_b: kendallTauB(
      graded.map((pair) => pair.severity),
      graded.map((pair) => pair.before - pair.after),
    ),
    graded_n: graded.length,
    mark: 'missed',
  };
}

function evaluatorEntries(
  input: SensitivityInput,
  reasons: ReadonlyMap<string, string>,
): MetaSensitivity['evaluators'] {
  const applicable = (evaluator: string) =>
    input.rows.some((row) => row.evaluator === evaluator && row.value !== null);
  return EVALUATOR_IDS.map((id) => ({
    id,
    family: evaluatorFamily(id),
    scale: scaleOf(id),
    tolerance: toleranceFor(id),
    applicable: applicable(id),
    ...(applicable(id) ? {} : { reason: reasons.get(id) ?? 'no deck was scored' }),
  }));
}

/** `sensitivity.json` from the per-deck scores of originals and perturbations; pure, so the same rows give the same JSON. */
export function computeSensitivity(input: SensitivityInput): MetaSensitivity {
  const { value, reasons } = indexScores(input.rows);
  const pairsOf = pairScores(input.records, value);
  const records = [...input.records.values()];
  const severities = [...new Set(records.map((record) => record.severity))].sort((a, b) => a - b);
  const kinds = PERTURBATION_KINDS.filter((kind) => records.some((record) => record.kind === kind));
  const cells: MetaSensitivity['cells'] = [];
  const summary: MetaSensitivity['summary'] = [];
  const pooled = new Map<string, Pair[]>();
  for (const evaluator of EVALUATOR_IDS)
    for (const kind of kinds) {
      const context = { evaluator, kind, input };
      const all: Pair[] = [];
      for (const severity of severities) {
        const entry = pairsOf.get(`${evaluator}${SEP}${kind}${SEP}${severity}`);
        if (!entry) continue;
        all.push(...entry.pairs);
        cells.push(severityCell(context, severity, entry));
      }
      pooled.set(`${evaluator}${SEP}${kind}`, all);
      summary.push(summaryRow(context, all));
    }
  const lengthControls = markSummary(summary, pooled);
  return {
    judge: input.judge,
    offline: input.offline,
    run: input.run,
    derived_run: input.derivedRun,
    original_decks: new Set(input.rows.map((row) => row.deck)).size,
    perturbed_decks: input.records.size,
    bootstrap: { seed: input.seed, resamples: input.resamples, confidence: input.confidence },
    evaluators: evaluatorEntries(input, reasons),
    cells,
    summary,
    length_controls: lengthControls,
    skipped: input.skipped.map((record) => ({
      deck: record.deck,
      kind: record.kind,
      severity: record.severity,
      reason: record.skipped ?? '',
    })),
    failures: [...input.failures],
  };
}

const fallShare = (pairs: readonly Pair[]) => (pairs.length === 0 ? null : fellCount(pairs) / pairs.length);

/**
 * `real` when the Wilson lower bound of the sensitivity beats both a coin (0.5: a random judge falls half
 * the time) and the fall rate on the length controls; `length_only` when it falls often but no more.
 */
function markSummary(
  summary: MetaSensitivity['summary'],
  pooled: ReadonlyMap<string, Pair[]>,
): MetaSensitivity['length_controls'] {
  const out: MetaSensitivity['length_controls'] = [];
  for (const evaluator of EVALUATOR_IDS) {
    const rows = summary.filter((row) => row.evaluator === evaluator);
    const controlShare = (kind: PerturbationKind) => fallShare(pooled.get(`${evaluator}\u0000${kind}`) ?? []);
    const neutralControls = LENGTH_CONTROL_KINDS.filter((kind) => {
      const pairs = pooled.get(`${evaluator}\u0000${kind}`) ?? [];
      return pairs.length > 0 && !pairs.some((pair) => pair.expected === 'lower');
    });
    const controlRate =
      neutralControls.length > 0 ? Math.max(...neutralControls.map((kind) => controlShare(kind) ?? 0)) : null;
    for (const row of rows) {
      if (row.expected !== 'lower' || row.sensitivity.n === 0) {
        row.mark = 'not_applicable';
        continue;
      }
      const low = row.sensitivity.ci_low ?? 0;
      const observed = row.sensitivity.share ?? 0;
      if (low > Math.max(0.5, controlRate ?? 0)) row.mark = 'real';
      else if (observed >= 0.5 && controlRate !== null && controlRate >= 0.5) row.mark = 'length_only';
      else row.mark = 'missed';
    }
    const real = rows.filter(
      (row) =>
        row.expected === 'lower' &&
        row.sensitivity.n > 0 &&
        !LENGTH_CONTROL_KINDS.includes(row.kind as PerturbationKind),
    );
    const realK = real.reduce((sum, row) => sum + row.sensitivity.k, 0);
    const realN = real.reduce((sum, row) => sum + row.sensitivity.n, 0);
    const realShare = realN > 0 ? realK / realN : null;
    const pad = controlShare('pad_words');
    const duplicate = controlShare('duplicate_slides');
    const tracksLength =
      controlRate !== null && controlRate >= 0.5 && (realShare === null || controlRate >= realShare);
    let note: string;
    if (neutralControls.length === 0) {
      note =
        pad === null && duplicate === null
          ? 'no length control was scored'
          : 'both length controls are expected to lower it (it measures length by design), so they cannot tell';
    } else if (tracksLength) {
      note = `falls on ${neutralControls.join(' / ')} (length only, no damage) at least as often as on real damage: its drops track word/slide count`;
    } else {
      note = `falls on ${neutralControls.join(' / ')} at ${controlRate === null ? 'n/a' : controlRate.toFixed(2)}, ${realShare === null ? 'no real damage expected to lower it' : `real damage at ${realShare.toFixed(2)}`}`;
    }
    out.push({
      evaluator,
      real_damage_sensitivity: realShare,
      pad_words_fall_share: pad,
      duplicate_slides_fall_share: duplicate,
      tracks_length: tracksLength,
      note,
    });
  }
  return out;
}
