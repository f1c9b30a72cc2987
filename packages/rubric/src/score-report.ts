import type { RubricClassWeights, RubricEvaluation, RubricItemResult, RubricSection } from '@xsb/core';
import { itemsFromPresentBenchResult, toPresentBenchResult } from './presentbench-result';
import {
  type PresentBenchCountingRule,
  type PresentBenchResult,
  type PresentBenchScoreTree,
  scorePresentBenchResult,
} from './presentbench-scoring';
import { type ErrorPolicy, type PaperScore, scorePaper } from './score-evaluation';

/**
 * The numbers PresentBench's scoring.py writes, flattened for reports and `--json`. While items are
 * `not_judged` (offline judge) a percentage that depends on them is null: scoring.py would score
 * their classes as if the missing items did not exist and the missing classes as 0.
 */
export interface PresentBenchSummary {
  method: 'presentbench-weighted';
  counting_rule: PresentBenchCountingRule;
  not_judged_count: number;
  total_percent: number | null;
  material_independent_percent: number | null;
  material_dependent_percent: number | null;
  classes: Record<
    RubricSection,
    Record<
      string,
      {
        score_percent: number | null;
        yes_count: number;
        valid_count: number;
        not_applicable_count: number;
        weight_percent: number;
      }
    >
  >;
  leave_one_out_percent: Record<string, number | null>;
}

export interface ScoreReport {
  paper: PaperScore;
  presentbench: PresentBenchSummary;
  /** The tree scoring.py writes for the exported result YAML (not-judged items are absent from it). */
  presentbench_score_tree: PresentBenchScoreTree;
}

/** `incomplete` holds `<section>_<class id>` of every class with a not-judged item. */
export function summarisePresentBench(
  tree: PresentBenchScoreTree,
  rule: PresentBenchCountingRule,
  incomplete: ReadonlySet<string> = new Set(),
  notJudgedCount = 0,
): PresentBenchSummary {
  const sectionComplete = (section: RubricSection): boolean =>
    ![...incomplete].some((key) => key.startsWith(`${section}_`));
  const unlessIncomplete = (value: number, complete: boolean): number | null => (complete ? value : null);
  const classes = (section: RubricSection) =>
    Object.fromEntries(
      Object.entries(tree[section].classes).map(([name, info]) => {
        const classId = name.replace(/^class_/, '');
        return [
          classId,
          {
            score_percent: unlessIncomplete(info.score_percent, !incomplete.has(`${section}_${classId}`)),
            yes_count: info.yes_count,
            valid_count: info.valid_count,
            not_applicable_count: info.not_applicable_count,
            weight_percent: info.weight_percent,
          },
        ];
      }),
    );
  return {
    method: 'presentbench-weighted',
    counting_rule: rule,
    not_judged_count: notJudgedCount,
    total_percent: unlessIncomplete(tree.total.weighted_arithmetic_mean_percent, incomplete.size === 0),
    material_independent_percent: unlessIncomplete(
      tree.material_independent.weighted_arithmetic_mean_percent,
      sectionComplete('material_independent'),
    ),
    material_dependent_percent: unlessIncomplete(
      tree.material_dependent.weighted_arithmetic_mean_percent,
      sectionComplete('material_dependent'),
    ),
    classes: {
      material_independent: classes('material_independent'),
      material_dependent: classes('material_dependent'),
    },
    leave_one_out_percent: Object.fromEntries(
      Object.entries(tree.total.leave_one_out_analysis).map(([removed, value]) => [
        removed,
        unlessIncomplete(
          value.weighted_arithmetic_mean_percent,
          [...incomplete].every((key) => key === removed),
        ),
      ]),
    ),
  };
}

export interface ScoreOptions {
  weights: RubricClassWeights;
  errorPolicy?: ErrorPolicy;
  countingRule?: PresentBenchCountingRule;
}

function report(items: RubricItemResult[], pbResult: PresentBenchResult, options: ScoreOptions): ScoreReport {
  const rule = options.countingRule ?? 'all-items';
  const tree = scorePresentBenchResult(pbResult, options.weights, rule);
  const notJudged = items.filter((item) => item.verdict === 'not_judged');
  const incomplete = new Set(notJudged.map((item) => `${item.section}_${item.class_id}`));
  return {
    paper: scorePaper(items, options.errorPolicy ?? 'report'),
    presentbench: summarisePresentBench(tree, rule, incomplete, notJudged.length),
    presentbench_score_tree: tree,
  };
}

/** Both scores of one evaluation: the paper's mean of dimensions and PresentBench's weighted mode. */
export function scoreEvaluation(evaluation: RubricEvaluation, options: ScoreOptions): ScoreReport {
  const pbResult = toPresentBenchResult(evaluation, { errorsAsNo: options.errorPolicy === 'as-no' });
  return report(evaluation.items, pbResult, options);
}

/** Both scores of a PresentBench result file's verdicts. */
export function scorePresentBenchVerdicts(result: PresentBenchResult, options: ScoreOptions): ScoreReport {
  return report(itemsFromPresentBenchResult(result), result, options);
}
