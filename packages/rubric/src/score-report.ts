import type { RubricClassWeights, RubricEvaluation, RubricItemResult } from '@xsb/core';
import { itemsFromPresentBenchResult, toPresentBenchResult } from './presentbench-result';
import {
  type PresentBenchCountingRule,
  type PresentBenchResult,
  type PresentBenchScoreTree,
  scorePresentBenchResult,
} from './presentbench-scoring';
import { type ErrorPolicy, type PaperScore, scorePaper } from './score-evaluation';

/** The numbers PresentBench's scoring.py writes, flattened for reports and `--json`. */
export interface PresentBenchSummary {
  method: 'presentbench-weighted';
  counting_rule: PresentBenchCountingRule;
  total_percent: number;
  material_independent_percent: number;
  material_dependent_percent: number;
  classes: Record<
    'material_independent' | 'material_dependent',
    Record<
      string,
      {
        score_percent: number;
        yes_count: number;
        valid_count: number;
        not_applicable_count: number;
        weight_percent: number;
      }
    >
  >;
  leave_one_out_percent: Record<string, number>;
}

export interface ScoreReport {
  paper: PaperScore;
  presentbench: PresentBenchSummary;
  /** The tree scoring.py would write to `<result>_score.yaml`. */
  presentbench_score_tree: PresentBenchScoreTree;
}

export function summarisePresentBench(
  tree: PresentBenchScoreTree,
  rule: PresentBenchCountingRule,
): PresentBenchSummary {
  const classes = (section: 'material_independent' | 'material_dependent') =>
    Object.fromEntries(
      Object.entries(tree[section].classes).map(([name, info]) => [
        name.replace(/^class_/, ''),
        {
          score_percent: info.score_percent,
          yes_count: info.yes_count,
          valid_count: info.valid_count,
          not_applicable_count: info.not_applicable_count,
          weight_percent: info.weight_percent,
        },
      ]),
    );
  return {
    method: 'presentbench-weighted',
    counting_rule: rule,
    total_percent: tree.total.weighted_arithmetic_mean_percent,
    material_independent_percent: tree.material_independent.weighted_arithmetic_mean_percent,
    material_dependent_percent: tree.material_dependent.weighted_arithmetic_mean_percent,
    classes: {
      material_independent: classes('material_independent'),
      material_dependent: classes('material_dependent'),
    },
    leave_one_out_percent: Object.fromEntries(
      Object.entries(tree.total.leave_one_out_analysis).map(([key, value]) => [
        key,
        value.weighted_arithmetic_mean_percent,
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
  return {
    paper: scorePaper(items, options.errorPolicy ?? 'report'),
    presentbench: summarisePresentBench(tree, rule),
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
