import type { UsageReconciliation } from './reconcile-usage';
import type { CostPlan } from './schemas/cost-plan';

export interface TextTable {
  header: string[];
  rows: string[][];
  /** Columns to align right (numbers). */
  numeric: number[];
}

const integer = (value: number) => value.toLocaleString('en-US');
const usd = (value: number | null) =>
  value === null ? 'n/a' : `$${value < 10 ? value.toFixed(4) : value.toFixed(2)}`;

/**
 * A row's basis: `exact` when its calls follow from the inputs on disk and nothing it counts would be
 * made anew by the run it stands for (`input_assumptions`, e.g. a lexical probe bank); else `estimated`.
 */
export function planRowBasis(row: CostPlan['rows'][number]): 'exact' | 'estimated' {
  return row.exact && row.input_assumptions.length === 0 ? 'exact' : 'estimated';
}

/** A plan as a table: one line per stage, then the totals. */
export function costPlanTable(plan: CostPlan): TextTable {
  const line = (label: string, row: CostPlan['totals'], basis: string) => [
    label,
    integer(row.calls),
    integer(row.cached_calls),
    integer(row.reused_calls),
    integer(row.input_tokens),
    integer(row.cache_read_tokens),
    integer(row.output_tokens),
    usd(row.cost_usd.online),
    usd(row.cost_usd.online_cached),
    usd(row.cost_usd.batch),
    basis,
  ];
  return {
    header: [
      'stage',
      'calls',
      'cached',
      'reused',
      'input tokens',
      'of which cache reads',
      'output tokens',
      'online',
      'online+cache',
      'batch',
      'basis',
    ],
    rows: [
      ...plan.rows.map((row) => line(row.stage, row, planRowBasis(row))),
      line(
        'total',
        plan.totals,
        plan.rows.every((row) => planRowBasis(row) === 'exact') ? 'exact' : 'estimated',
      ),
    ],
    numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  };
}

const percent = (error: number | null) =>
  error === null ? 'n/a' : `${error >= 0 ? '+' : ''}${(error * 100).toFixed(1)} %`;

/** Plan against ledger: one line per stage, planned / actual. */
export function reconciliationTable(reconciliation: UsageReconciliation): TextTable {
  return {
    header: [
      'stage',
      'calls plan/actual',
      'cached plan/actual',
      'input tokens plan/actual',
      'input error',
      'output tokens plan/actual',
      'cost plan/actual',
      'basis',
      'check',
    ],
    rows: reconciliation.rows.map((row) => [
      row.stage,
      `${integer(row.planned.calls)} / ${integer(row.actual.calls)}`,
      `${integer(row.planned.cached_calls)} / ${integer(row.actual.cached_calls)}`,
      `${integer(row.planned.input_tokens)} / ${integer(row.actual.input_tokens)}`,
      percent(row.input_error),
      `${integer(row.planned.output_tokens)} / ${integer(row.actual.output_tokens)}`,
      `${usd(row.planned.cost_usd)} / ${usd(row.actual.cost_usd)}`,
      row.exact ? 'exact' : 'estimated',
      row.problems.length > 0 ? 'FAIL' : row.exact ? 'ok' : 'shown',
    ]),
    numeric: [1, 2, 3, 4, 5, 6],
  };
}
