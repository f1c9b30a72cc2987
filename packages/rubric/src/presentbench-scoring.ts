/**
 * A line-by-line port of PresentBench's `scoring.py` at main (e70ff01): `score_section`,
 * `_compute_leave_one_out`, `compute_scores` and `_build_tree_data`, over values typed as PyYAML
 * gives them, so the same result YAML and `judge_weights.yaml` give the same numbers here — and where
 * scoring.py stops with an exception, this stops with an `InputError` saying where and why.
 */
import { InputError } from '@xsb/core';
import { pythonStrip } from './boxed-verdict';
import {
  isPyMapping,
  type PyValue,
  pyFloat,
  pyGet,
  pyHasKey,
  pyItems,
  pyStr,
  pyTypeName,
} from './python-values';

/** A PresentBench result: `{material_independent: {"1": {"1.1": {answer, explanation}}}, ...}`. */
export type PresentBenchResult = PyValue;

/**
 * Which item answers count in a class's denominator. `all-items` is scoring.py at main: every item
 * entry counts, so any answer but "yes" scores as not-yes. `yes-no-only` is the rule of PresentBench
 * commit 65068ca: only "yes"/"no" answers count ("not applicable", unanswered and other text are left
 * out); its numbers are laid out in main's tree.
 */
export type PresentBenchCountingRule = 'all-items' | 'yes-no-only';

/**
 * An item whose answer is not a string (`null` after a failed extraction, a YAML boolean from an
 * unquoted `yes`, a number) stops scoring.py at main (`answer.strip()` raises). `fail` reproduces
 * that as an `InputError`; `as-no` scores such answers as not-yes, which is what scoring.py computes
 * on the same file after `xsb rubric export --errors as-no`.
 */
export type UnansweredPolicy = 'fail' | 'as-no';

export interface PresentBenchScoringOptions {
  rule?: PresentBenchCountingRule;
  unanswered?: UnansweredPolicy;
  /** Named in errors. */
  file?: string;
}

export interface PresentBenchClassTree {
  weight_percent: number;
  score_percent: number;
  yes_count: number;
  valid_count: number;
}

export interface PresentBenchSectionTree {
  weighted_arithmetic_mean_percent: number;
  yes_count: number;
  valid_count: number;
  weight_percent: number;
  classes: Record<string, PresentBenchClassTree>;
}

/** Exactly the tree scoring.py (main) writes to `<result>_score.yaml`: both sections nested in `total`. */
export interface PresentBenchScoreTree {
  total: {
    weighted_arithmetic_mean_percent: number;
    yes_count: number;
    valid_count: number;
    leave_one_out_analysis: Record<string, { weighted_arithmetic_mean_percent: number }>;
    material_independent: PresentBenchSectionTree;
    material_dependent: PresentBenchSectionTree;
  };
}

interface ClassInfo {
  key: unknown;
  score: number;
  max_score: number;
  yes_count: number;
  valid_count: number;
}

type Mapping = Map<unknown, unknown> | Record<string, unknown>;

/** What scoring.py would raise at `where`, as a user-facing error. */
function stops(where: string, pythonError: string, file: string | undefined): InputError {
  return new InputError(`${where}: PresentBench's scoring.py stops here (${pythonError})`, {
    ...(file ? { file } : {}),
  });
}

function mappingAt(value: unknown, where: string, method: string, file: string | undefined): Mapping {
  if (!isPyMapping(value)) {
    throw stops(where, `AttributeError: '${pyTypeName(value)}' object has no attribute '${method}'`, file);
  }
  return value;
}

function floatAt(value: unknown, where: string, file: string | undefined): number {
  const number = pyFloat(value);
  if (number === undefined) {
    throw stops(
      where,
      `${typeof value === 'string' ? 'ValueError' : 'TypeError'}: float() cannot read ${pyTypeName(value)} ${JSON.stringify(pyStr(value))}`,
      file,
    );
  }
  return number;
}

const sum = (values: number[]): number => values.reduce((acc, value) => acc + value, 0);

/** `score_section`: class score = class weight × yes / valid (0 when nothing is valid or the weight is 0). */
function scoreSection(
  section: string,
  answers: unknown,
  classWeights: Mapping,
  options: Required<Omit<PresentBenchScoringOptions, 'file'>> & { file?: string },
): { total: number; classInfo: ClassInfo[] } {
  const { file } = options;
  const classInfo: ClassInfo[] = [];
  let total = 0;
  for (const [classId, classAnswers] of pyItems(mappingAt(answers, section, 'items', file))) {
    if (classId === 'total') continue;
    const where = `${section} → ${pyStr(classId)}`;
    const classTotal = floatAt(pyGet(classWeights, classId) ?? 0, `weights ${where}`, file);
    let yes = 0;
    let valid = 0;
    for (const [itemId, item] of pyItems(mappingAt(classAnswers, where, 'items', file))) {
      if (!isPyMapping(item)) continue;
      const raw = pyHasKey(item, 'answer') ? pyGet(item, 'answer') : '';
      if (options.rule === 'yes-no-only') {
        if (raw === null || raw === undefined) continue;
        const answer = pythonStrip(pyStr(raw)).toLowerCase();
        if (answer === 'yes' || answer === 'no') {
          valid += 1;
          if (answer === 'yes') yes += 1;
        }
        continue;
      }
      valid += 1;
      if (typeof raw !== 'string') {
        if (options.unanswered === 'fail') {
          throw stops(
            `${where} → ${pyStr(itemId)}: answer is ${raw === null ? 'null (unanswered)' : `the ${pyTypeName(raw)} ${pyStr(raw)}`}`,
            `AttributeError: '${pyTypeName(raw)}' object has no attribute 'strip'`,
            file,
          );
        }
        continue;
      }
      if (pythonStrip(raw).toLowerCase() === 'yes') yes += 1;
    }
    const score = valid === 0 || classTotal === 0 ? 0 : (classTotal * yes) / valid;
    classInfo.push({ key: classId, score, max_score: classTotal, yes_count: yes, valid_count: valid });
    total += score;
  }
  return { total, classInfo };
}

const percentOf = (part: number, whole: number): number => (whole > 0 ? (part / whole) * 100 : 0);
const weightOf = (section: Mapping, key: unknown): number => pyFloat(pyGet(section, key) ?? 0) ?? 0;

/** A section's weight map (`weights.get(section, {})`). */
function sectionWeightsOf(allWeights: Mapping, name: string, file: string | undefined): Mapping {
  return mappingAt(pyHasKey(allWeights, name) ? pyGet(allWeights, name) : {}, `weights ${name}`, 'get', file);
}

/** scoring.py sums every entry of a section's weight map, a `total` entry included. */
function sectionMax(section: Mapping, name: string, file: string | undefined): number {
  return sum(pyItems(section).map(([key, value]) => floatAt(value, `weights ${name} → ${pyStr(key)}`, file)));
}

interface WeightedClass {
  name: string;
  info: ClassInfo;
  weight: number;
}

/** Every class of a section with its weight, named `<section>_<class>`. */
function weightedClasses(section: string, classInfo: ClassInfo[], weights: Mapping): WeightedClass[] {
  return classInfo.map((info) => ({
    name: `${section}_${pyStr(info.key)}`,
    info,
    weight: weightOf(weights, info.key),
  }));
}

/** The weighted mean with each class left out in turn. */
function leaveOneOutOf(all: WeightedClass[]): Record<string, { weighted_arithmetic_mean_percent: number }> {
  const leaveOneOut: Record<string, { weighted_arithmetic_mean_percent: number }> = {};
  for (const removed of all) {
    const kept = all.filter((entry) => entry.name !== removed.name);
    leaveOneOut[removed.name] = {
      weighted_arithmetic_mean_percent: percentOf(
        sum(kept.map((entry) => entry.info.score)),
        sum(kept.map((entry) => entry.weight)),
      ),
    };
  }
  return leaveOneOut;
}

/** One section of the score tree. */
function sectionTree(
  scored: { total: number; classInfo: ClassInfo[] },
  max: number,
  sectionWeights: Mapping,
  overallMax: number,
): PresentBenchSectionTree {
  const { classInfo } = scored;
  return {
    weighted_arithmetic_mean_percent: percentOf(scored.total, max),
    yes_count: sum(classInfo.map((entry) => entry.yes_count)),
    valid_count: sum(classInfo.map((entry) => entry.valid_count)),
    weight_percent: percentOf(max, overallMax),
    classes: Object.fromEntries(
      classInfo.map((entry) => [
        `class_${pyStr(entry.key)}`,
        {
          weight_percent: percentOf(weightOf(sectionWeights, entry.key), overallMax),
          score_percent: percentOf(entry.score, entry.max_score),
          yes_count: entry.yes_count,
          valid_count: entry.valid_count,
        },
      ]),
    ),
  };
}

/** `compute_scores` + `_build_tree_data`: section and overall weighted means, leave-one-out per class. */
export function scorePresentBenchResult(
  result: PresentBenchResult,
  weights: PyValue,
  options: PresentBenchScoringOptions = {},
): PresentBenchScoreTree {
  const { file } = options;
  const settings = {
    rule: options.rule ?? 'all-items',
    unanswered: options.unanswered ?? 'fail',
    ...(file ? { file } : {}),
  } as const;
  // The steps run in scoring.py's order, so the same malformed file raises at the same place.
  const combined = mappingAt(result, 'the result file', 'get', file);
  const allWeights = mappingAt(weights, 'the weights file', 'get', file);
  const miWeights = sectionWeightsOf(allWeights, 'material_independent', file);
  const mdWeights = sectionWeightsOf(allWeights, 'material_dependent', file);
  const mi = scoreSection(
    'material_independent',
    pyGet(combined, 'material_independent') ?? null,
    miWeights,
    settings,
  );
  const md = scoreSection(
    'material_dependent',
    pyGet(combined, 'material_dependent') ?? null,
    mdWeights,
    settings,
  );
  const miMax = sectionMax(miWeights, 'material_independent', file);
  const mdMax = sectionMax(mdWeights, 'material_dependent', file);
  const overallMax = pyHasKey(allWeights, 'total')
    ? floatAt(pyGet(allWeights, 'total'), 'weights total', file)
    : miMax + mdMax;
  const leaveOneOut = leaveOneOutOf([
    ...weightedClasses('material_independent', mi.classInfo, miWeights),
    ...weightedClasses('material_dependent', md.classInfo, mdWeights),
  ]);
  const miTree = sectionTree(mi, miMax, miWeights, overallMax);
  const mdTree = sectionTree(md, mdMax, mdWeights, overallMax);
  return {
    total: {
      weighted_arithmetic_mean_percent: percentOf(mi.total + md.total, overallMax),
      yes_count: miTree.yes_count + mdTree.yes_count,
      valid_count: miTree.valid_count + mdTree.valid_count,
      leave_one_out_analysis: leaveOneOut,
      material_independent: miTree,
      material_dependent: mdTree,
    },
  };
}
