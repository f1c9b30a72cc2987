import type { AudienceWeightInput, Metrics, Probe, ProbeInput, ProbeScore, ProbeScoreInput } from '@xsb/core';
import { ValidationError } from '@xsb/core/basics';

/** Spec 000 default: a probe counts for an audience when its utility weight is at least 0.7. */
export const DEFAULT_TAU_A = 0.7;

/** Spec 000 presentation-time proxy: 0.25 per slide plus visible words / 130. */
export const TIME_COST = { perSlide: 0.25, wordsPerUnit: 130 } as const;

/**
 * Weights are means of snapped judge values (e.g. (1.0 + 0.6 + 0.6 + 0.6) / 4 = 0.7 in floating point
 * may be 0.6999999999999998); a weight within this distance below tau_a still counts as reaching it.
 */
export const TAU_A_TOLERANCE = 1e-9;

export interface ComputeMetricsInput {
  audience: string;
  probes: readonly ProbeInput[];
  weights: readonly AudienceWeightInput[];
  scores: readonly ProbeScoreInput[];
  slideCount: number;
  visibleWordCount: number;
  /** The deck's correctness in [0, 1], or null/undefined when it was not scored. */
  correctness?: number | null;
  /** Why correctness is null (`null_reason` of correctness.json); kept only while it is null. */
  correctnessNullReason?: string;
  tauA?: number;
}

/** How the three files joined: every row that could not take part is counted, never dropped silently. */
export interface MetricsJoinReport {
  probe_count: number;
  weighted_probe_count: number;
  covered_included_probe_count: number;
  /** Included probes without a score row: counted as uncovered. */
  missing_score_probe_ids: string[];
  /** Probes of the bank without a weight row for this audience: not included. */
  unweighted_probe_ids: string[];
  /** Score rows naming no probe of the bank: ignored. */
  unknown_score_probe_ids: string[];
  /** Weight rows naming no probe of the bank: ignored. */
  unknown_weight_probe_ids: string[];
  /** probe ids with more than one score (or weight) row: the first row is used. */
  duplicate_score_probe_ids: string[];
  duplicate_weight_probe_ids: string[];
}

export type ComputedMetrics = Metrics & {
  slide_count: number;
  visible_word_count: number;
  join: MetricsJoinReport;
};

function firstById<T extends { probe_id: string }>(
  rows: readonly T[],
): { byId: Map<string, T>; duplicates: string[] } {
  const byId = new Map<string, T>();
  const duplicates = new Set<string>();
  for (const row of rows) {
    if (byId.has(row.probe_id)) duplicates.add(row.probe_id);
    else byId.set(row.probe_id, row);
  }
  return { byId, duplicates: [...duplicates].sort() };
}

/** An included probe with its utility weight and its score row (undefined when the deck has none). */
export interface IncludedProbe<P extends ProbeInput = Probe, S extends ProbeScoreInput = ProbeScore> {
  probe: P;
  weight: number;
  score: S | undefined;
}

/**
 * The stage 6 join, the one definition of "included" that coverage and domain-wise coverage share:
 * probes in bank order whose weight for the audience reaches tau_a (first row per probe_id wins),
 * plus every row that could not take part.
 */
export function joinIncludedProbes<P extends ProbeInput, S extends ProbeScoreInput>(input: {
  audience: string;
  probes: readonly P[];
  weights: readonly AudienceWeightInput[];
  scores: readonly S[];
  tauA: number;
}): {
  included: IncludedProbe<P, S>[];
  join: Omit<MetricsJoinReport, 'covered_included_probe_count'>;
} {
  const probeIds = new Set(input.probes.map((probe) => probe.probe_id));
  const weights = firstById(input.weights.filter((row) => row.audience === input.audience));
  const scores = firstById(input.scores);
  const included: IncludedProbe<P, S>[] = [];
  const missingScore: string[] = [];
  const unweighted: string[] = [];
  for (const probe of input.probes) {
    const weight = weights.byId.get(probe.probe_id);
    if (!weight) {
      unweighted.push(probe.probe_id);
      continue;
    }
    if (weight.utility_weight < input.tauA - TAU_A_TOLERANCE) continue;
    const score = scores.byId.get(probe.probe_id);
    if (!score) missingScore.push(probe.probe_id);
    included.push({ probe, weight: weight.utility_weight, score });
  }
  return {
    included,
    join: {
      probe_count: input.probes.length,
      weighted_probe_count: input.probes.length - unweighted.length,
      missing_score_probe_ids: missingScore,
      unweighted_probe_ids: unweighted,
      unknown_score_probe_ids: [...scores.byId.keys()].filter((id) => !probeIds.has(id)).sort(),
      unknown_weight_probe_ids: [...weights.byId.keys()].filter((id) => !probeIds.has(id)).sort(),
      duplicate_score_probe_ids: scores.duplicates,
      duplicate_weight_probe_ids: weights.duplicates,
    },
  };
}

function ratioOrNull(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/** A library caller's numbers, checked: a NaN, a weight outside [0, 1] or a negative count would give a silent wrong metric. */
function checkMetricsInput(input: ComputeMetricsInput, tauA: number): void {
  const fail = (field: string, value: unknown, rule: string) => {
    throw new ValidationError(`must be ${rule}, got ${value}`, { field });
  };
  const isShare = (value: number) => Number.isFinite(value) && value >= 0 && value <= 1;
  if (!isShare(tauA)) fail('tauA', tauA, 'a number in [0, 1]');
  for (const field of ['slideCount', 'visibleWordCount'] as const)
    if (!Number.isInteger(input[field]) || input[field] < 0) fail(field, input[field], 'a whole number ≥ 0');
  if (input.correctness != null && !isShare(input.correctness))
    fail('correctness', input.correctness, 'null or a number in [0, 1]');
  input.weights.forEach((row, index) => {
    if (!isShare(row.utility_weight))
      fail(`weights[${index}].utility_weight`, row.utility_weight, 'a number in [0, 1]');
  });
}

/**
 * Stage 6 for one deck and one audience (spec 000): join probes, weights and scores by probe_id;
 * include probes whose weight reaches tau_a; coverage = recovered / available utility; efficiency =
 * recovered utility per time, slide and word cost; safe_efficiency_time = efficiency_time ×
 * correctness. With no included probe, coverage and the efficiencies are null with a reason.
 */
export function computeMetrics(input: ComputeMetricsInput): ComputedMetrics {
  const tauA = input.tauA ?? DEFAULT_TAU_A;
  checkMetricsInput(input, tauA);
  const { included, join } = joinIncludedProbes({ ...input, tauA });
  const { probe_count, weighted_probe_count, ...problems } = join;
  let available = 0;
  let recovered = 0;
  let coveredIncluded = 0;
  for (const entry of included) {
    available += entry.weight;
    if (entry.score?.covered) {
      recovered += entry.weight;
      coveredIncluded += 1;
    }
  }

  const slideCount = input.slideCount;
  const wordCount = input.visibleWordCount;
  const timeCost = TIME_COST.perSlide * slideCount + wordCount / TIME_COST.wordsPerUnit;
  const correctness = input.correctness ?? null;

  let coverage: number | null = null;
  let efficiencyTime: number | null = null;
  let efficiencySlide: number | null = null;
  let efficiencyWord: number | null = null;
  let nullReason: string | undefined;
  if (included.length === 0) {
    nullReason =
      input.probes.length === 0
        ? 'the probe bank is empty'
        : `no probe has a ${input.audience} weight >= tau_a (${tauA})`;
  } else if (!(available > 0)) {
    nullReason = `the included probes carry no utility (tau_a ${tauA} admits zero weights)`;
  } else {
    coverage = recovered / available;
    efficiencyTime = ratioOrNull(recovered, timeCost);
    efficiencySlide = recovered / Math.max(slideCount, 1);
    efficiencyWord = recovered / Math.max(wordCount, 1);
  }

  return {
    audience: input.audience,
    tau_a: tauA,
    included_probe_count: included.length,
    available_utility: available,
    recovered_utility: recovered,
    coverage,
    ...(nullReason ? { coverage_null_reason: nullReason } : {}),
    efficiency_time: efficiencyTime,
    efficiency_slide: efficiencySlide,
    efficiency_word: efficiencyWord,
    correctness,
    ...(correctness === null && input.correctnessNullReason
      ? { correctness_null_reason: input.correctnessNullReason }
      : {}),
    safe_efficiency_time:
      efficiencyTime !== null && correctness !== null ? efficiencyTime * correctness : null,
    slide_count: slideCount,
    visible_word_count: wordCount,
    join: { probe_count, weighted_probe_count, covered_included_probe_count: coveredIncluded, ...problems },
  };
}
