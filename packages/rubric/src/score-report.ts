import { isXsbError } from '@xsb/core';
import { itemsFromPresentBenchResult, toPresentBenchResult } from './presentbench-result';
import {
  type PresentBenchCountingRule,
  type PresentBenchResult,
  type PresentBenchScoreTree,
  scorePresentBenchResult,
} from './presentbench-scoring';
import type { PyValue } from './python-values';
import type { RubricEvaluation, RubricItemResult, RubricSection } from './schemas/rubric-evaluation';
import type { RubricClassWeights } from './schemas/rubric-instance';
import { type ErrorPolicy, type PaperScore, scorePaper } from './score-evaluation';

export interface PresentBenchClassSummary {
  /**
   * scoring.py's number (0.0 for a class without items, as upstream writes it); null when the class
   * holds an unjudged or (under `report`) unanswered item.
   */
  score_percent: number | null;
  yes_count: number;
  valid_count: number;
  weight_percent: number;
}

/**
 * The numbers PresentBench's scoring.py writes, flattened for reports and `--json`. A percentage that
 * depends on a `not_judged` item (offline judge) — or, under the `report` error policy, on an
 * unanswered item — is null: scoring.py would score such a file differently or not at all.
 */
export interface PresentBenchSummary {
  method: 'presentbench-weighted';
  counting_rule: PresentBenchCountingRule;
  not_judged_count: number;
  /** Items without an answer (`answer: null` in the result file). */
  unanswered_count: number;
  /** Why scoring.py (main) cannot score the result file as it stands, or null when it can. */
  unscoreable_reason: string | null;
  total_percent: number | null;
  material_independent_percent: number | null;
  material_dependent_percent: number | null;
  classes: Record<RubricSection, Record<string, PresentBenchClassSummary>>;
  leave_one_out_percent: Record<string, number | null>;
}

export interface ScoreReport {
  paper: PaperScore;
  presentbench: PresentBenchSummary;
  /**
   * The tree scoring.py writes for the result file (`--errors as-no`: for the file with unanswered
   * items exported as "no"); null when scoring.py cannot score it (see `unscoreable_reason`).
   */
  presentbench_score_tree: PresentBenchScoreTree | null;
}

export interface ScoreOptions {
  /** Class weights: the instance's, or a `judge_weights.yaml` as read by `readPythonYaml`. */
  weights: RubricClassWeights | PyValue;
  errorPolicy?: ErrorPolicy;
  countingRule?: PresentBenchCountingRule;
  /** Named in errors about the result file. */
  file?: string;
}

/** A class scoring.py scores 0.0 only because it holds no item: printed "n/a (no items)" beside the 0.0. */
export function classHasNoItems(info: PresentBenchClassSummary): boolean {
  return info.valid_count === 0;
}

/** `incomplete` holds `<section>_<class id>` of every class whose percentage cannot be given. */
export function summarisePresentBench(
  tree: PresentBenchScoreTree,
  rule: PresentBenchCountingRule,
  incomplete: ReadonlySet<string>,
  counts: { notJudged: number; unanswered: number; unscoreableReason: string | null },
): PresentBenchSummary {
  // A class without items keeps scoring.py's number (0.0, its weight counted as lost): the summary
  // carries upstream's numbers, and printed text says n/a beside it ({@link classHasNoItems}).
  const blocking = new Set(incomplete);
  const sectionKnown = (section: RubricSection): boolean =>
    ![...blocking].some((key) => key.startsWith(`${section}_`));
  const unless = (value: number, known: boolean): number | null => (known ? value : null);
  const classes = (section: RubricSection) =>
    Object.fromEntries(
      Object.entries(tree.total[section].classes).map(([name, info]) => {
        const classId = name.replace(/^class_/, '');
        return [
          classId,
          {
            score_percent: unless(info.score_percent, !blocking.has(`${section}_${classId}`)),
            yes_count: info.yes_count,
            valid_count: info.valid_count,
            weight_percent: info.weight_percent,
          },
        ];
      }),
    );
  return {
    method: 'presentbench-weighted',
    counting_rule: rule,
    not_judged_count: counts.notJudged,
    unanswered_count: counts.unanswered,
    unscoreable_reason: counts.unscoreableReason,
    total_percent: unless(tree.total.weighted_arithmetic_mean_percent, blocking.size === 0),
    material_independent_percent: unless(
      tree.total.material_independent.weighted_arithmetic_mean_percent,
      sectionKnown('material_independent'),
    ),
    material_dependent_percent: unless(
      tree.total.material_dependent.weighted_arithmetic_mean_percent,
      sectionKnown('material_dependent'),
    ),
    classes: {
      material_independent: classes('material_independent'),
      material_dependent: classes('material_dependent'),
    },
    leave_one_out_percent: Object.fromEntries(
      Object.entries(tree.total.leave_one_out_analysis).map(([removed, value]) => [
        removed,
        unless(
          value.weighted_arithmetic_mean_percent,
          [...blocking].every((key) => key === removed),
        ),
      ]),
    ),
  };
}

function report(items: RubricItemResult[], pbResult: PresentBenchResult, options: ScoreOptions): ScoreReport {
  const rule = options.countingRule ?? 'all-items';
  const policy = options.errorPolicy ?? 'report';
  const file = options.file;
  const scoring = { rule, ...(file ? { file } : {}) };
  // Every number of the summary, unanswered items as not-yes; the classes they sit in are withheld below.
  const tree = scorePresentBenchResult(pbResult, options.weights, { ...scoring, unanswered: 'as-no' });
  let exact: PresentBenchScoreTree | null = null;
  let unscoreableReason: string | null = null;
  try {
    exact = scorePresentBenchResult(pbResult, options.weights, { ...scoring, unanswered: 'fail' });
  } catch (error) {
    if (!isXsbError(error) || error.kind !== 'input') throw error;
    unscoreableReason = error.message;
  }
  const notJudged = items.filter((item) => item.verdict === 'not_judged');
  const unanswered = items.filter((item) => item.verdict === 'error');
  const withheld = [...notJudged, ...(policy === 'report' ? unanswered : [])];
  const incomplete = new Set(withheld.map((item) => `${item.section}_${item.class_id}`));
  return {
    paper: scorePaper(items, policy),
    presentbench: summarisePresentBench(tree, rule, incomplete, {
      notJudged: notJudged.length,
      unanswered: unanswered.length,
      unscoreableReason,
    }),
    presentbench_score_tree: exact ?? (policy === 'as-no' && notJudged.length === 0 ? tree : null),
  };
}

/** Both scores of one evaluation: the paper's mean of dimensions and PresentBench's weighted mode. */
export function scoreEvaluation(evaluation: RubricEvaluation, options: ScoreOptions): ScoreReport {
  const pbResult = toPresentBenchResult(evaluation, {
    errors:
      options.errorPolicy === 'as-no' && !evaluation.items.some((item) => item.verdict === 'not_judged')
        ? 'as-no'
        : 'as-null',
  });
  return report(evaluation.items, pbResult, options);
}

/** Both scores of a PresentBench result file's verdicts. */
export function scorePresentBenchVerdicts(result: PresentBenchResult, options: ScoreOptions): ScoreReport {
  return report(itemsFromPresentBenchResult(result), result, options);
}
