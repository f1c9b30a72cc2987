/**
 * A line-by-line port of PresentBench's `scoring.py` (`score_section`, `_compute_leave_one_out`,
 * `compute_scores`, `_build_tree_data`), so the same result YAML and `judge_weights.yaml` give the
 * same numbers in either tool.
 */

/** A PresentBench result file: `{material_independent: {"1": {"1.1": {answer, explanation}}}, ...}`. */
export type PresentBenchResult = Record<string, unknown>;

/** `judge_weights.yaml`: class weights per tier (a section map may itself hold a `total`), optional `total`. */
export interface PresentBenchWeights {
  material_independent?: Record<string, number>;
  material_dependent?: Record<string, number>;
  total?: number;
}

/**
 * Which item answers count in a class's denominator. `all-items` is scoring.py at PresentBench
 * commit f228b29 (current; its test "unanswered and not-applicable items keep historical
 * denominator"): every item counts, so an unanswered or unparseable item scores as "no".
 * `yes-no-only` is commit 65068ca: only "yes"/"no" answers count; unanswered, "not applicable" and
 * any other text are left out.
 */
export type PresentBenchCountingRule = 'all-items' | 'yes-no-only';

export interface PresentBenchClassInfo {
  score: number;
  max_score: number;
  yes_count: number;
  valid_count: number;
  not_applicable_count: number;
}

export interface PresentBenchClassTree {
  weight_percent: number;
  score_percent: number;
  yes_count: number;
  valid_count: number;
  not_applicable_count: number;
}

export interface PresentBenchSectionTree {
  weighted_arithmetic_mean_percent: number;
  yes_count: number;
  valid_count: number;
  not_applicable_count: number;
  weight_percent: number;
  classes: Record<string, PresentBenchClassTree>;
}

/** Exactly the tree scoring.py writes to `<result>_score.yaml`. */
export interface PresentBenchScoreTree {
  total: {
    weighted_arithmetic_mean_percent: number;
    yes_count: number;
    valid_count: number;
    not_applicable_count: number;
    leave_one_out_analysis: Record<string, { weighted_arithmetic_mean_percent: number }>;
  };
  material_independent: PresentBenchSectionTree;
  material_dependent: PresentBenchSectionTree;
}

/** Python's `str()` of a YAML 1.1 scalar, which scoring.py lower-cases and compares. */
export function pythonString(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** `score_section`: class score = class weight × yes / valid (0 when nothing is valid or the weight is 0). */
export function scorePresentBenchSection(
  answers: unknown,
  classWeights: Record<string, number>,
  rule: PresentBenchCountingRule = 'all-items',
): { total: number; classInfo: Record<string, PresentBenchClassInfo> } {
  const classInfo: Record<string, PresentBenchClassInfo> = {};
  let total = 0;
  for (const [classId, classAnswers] of Object.entries(asRecord(answers))) {
    if (classId === 'total') continue;
    const classTotal = Number(classWeights[classId] ?? 0);
    let yes = 0;
    let valid = 0;
    let notApplicable = 0;
    for (const item of Object.values(asRecord(classAnswers))) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
      const raw = (item as Record<string, unknown>).answer;
      if (rule === 'all-items') {
        valid += 1;
        const answer = raw === null || raw === undefined ? '' : pythonString(raw).trim().toLowerCase();
        if (answer === 'not applicable') notApplicable += 1;
        else if (answer === 'yes') yes += 1;
      } else {
        if (raw === null || raw === undefined) continue;
        const answer = pythonString(raw).trim().toLowerCase();
        if (answer === 'not applicable' || answer === 'not\\ applicable') {
          notApplicable += 1;
          continue;
        }
        if (answer === 'yes' || answer === 'no') {
          valid += 1;
          if (answer === 'yes') yes += 1;
        }
      }
    }
    const score = valid === 0 || classTotal === 0 ? 0 : (classTotal * yes) / valid;
    classInfo[classId] = {
      score,
      max_score: classTotal,
      yes_count: yes,
      valid_count: valid,
      not_applicable_count: notApplicable,
    };
    total += score;
  }
  return { total, classInfo };
}

const sum = (values: number[]): number => values.reduce((acc, value) => acc + value, 0);

/** `compute_scores` + `_build_tree_data`: section and overall weighted means, leave-one-out per class. */
export function scorePresentBenchResult(
  result: PresentBenchResult,
  weights: PresentBenchWeights,
  rule: PresentBenchCountingRule = 'all-items',
): PresentBenchScoreTree {
  const miWeights = weights.material_independent ?? {};
  const mdWeights = weights.material_dependent ?? {};
  const mi = scorePresentBenchSection(result.material_independent, miWeights, rule);
  const md = scorePresentBenchSection(result.material_dependent, mdWeights, rule);
  // scoring.py sums every entry of a section's weight map, a `total` entry included.
  const miMax = sum(Object.values(miWeights).map(Number));
  const mdMax = sum(Object.values(mdWeights).map(Number));
  const overallMax = Number(weights.total ?? miMax + mdMax);
  const percent = (part: number, whole: number): number => (whole > 0 ? (part / whole) * 100 : 0);

  const allInfo: Record<string, PresentBenchClassInfo> = {};
  const allWeights: Record<string, number> = {};
  for (const [id, info] of Object.entries(mi.classInfo)) {
    allInfo[`material_independent_${id}`] = info;
    allWeights[`material_independent_${id}`] = Number(miWeights[id] ?? 0);
  }
  for (const [id, info] of Object.entries(md.classInfo)) {
    allInfo[`material_dependent_${id}`] = info;
    allWeights[`material_dependent_${id}`] = Number(mdWeights[id] ?? 0);
  }
  const leaveOneOut: Record<string, { weighted_arithmetic_mean_percent: number }> = {};
  for (const removed of Object.keys(allInfo)) {
    const kept = Object.keys(allInfo).filter((key) => key !== removed);
    const keptScore = sum(kept.map((key) => (allInfo[key] as PresentBenchClassInfo).score));
    const keptMax = sum(kept.map((key) => allWeights[key] ?? 0));
    leaveOneOut[removed] = { weighted_arithmetic_mean_percent: percent(keptScore, keptMax) };
  }

  const section = (
    info: Record<string, PresentBenchClassInfo>,
    sectionTotal: number,
    sectionMax: number,
    sectionWeights: Record<string, number>,
  ): PresentBenchSectionTree => ({
    weighted_arithmetic_mean_percent: percent(sectionTotal, sectionMax),
    yes_count: sum(Object.values(info).map((entry) => entry.yes_count)),
    valid_count: sum(Object.values(info).map((entry) => entry.valid_count)),
    not_applicable_count: sum(Object.values(info).map((entry) => entry.not_applicable_count)),
    weight_percent: percent(sectionMax, overallMax),
    classes: Object.fromEntries(
      Object.entries(info).map(([id, entry]) => [
        `class_${id}`,
        {
          weight_percent: percent(Number(sectionWeights[id] ?? 0), overallMax),
          score_percent: percent(entry.score, entry.max_score),
          yes_count: entry.yes_count,
          valid_count: entry.valid_count,
          not_applicable_count: entry.not_applicable_count,
        },
      ]),
    ),
  });
  const miTree = section(mi.classInfo, mi.total, miMax, miWeights);
  const mdTree = section(md.classInfo, md.total, mdMax, mdWeights);
  return {
    total: {
      weighted_arithmetic_mean_percent: percent(mi.total + md.total, overallMax),
      yes_count: miTree.yes_count + mdTree.yes_count,
      valid_count: miTree.valid_count + mdTree.valid_count,
      not_applicable_count: miTree.not_applicable_count + mdTree.not_applicable_count,
      leave_one_out_analysis: leaveOneOut,
    },
    material_independent: miTree,
    material_dependent: mdTree,
  };
}
