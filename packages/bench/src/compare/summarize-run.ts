import type { FactorDefinition } from '../configurations/bench-factors';
import { type ConfigurationPlan, planConfigurations } from '../configurations/configuration-sets';
import type { BenchEvaluationOverrides } from '../schemas/bench-config';
import type { BenchRow } from '../schemas/bench-row';
import type { BenchRun } from '../schemas/bench-run';
import type { BenchSummary } from '../schemas/bench-summary';
import { compareRows, planPairs } from './compare-rows';
import { groupStats, presentMetrics, shapleyOf } from './summarize-rows';

/** The ladder, leave-one-out and factorial structure of a recorded run (it depends only on names). */
export function planOfRun(run: BenchRun): ConfigurationPlan {
  const factors: FactorDefinition[] = run.factors.map((name) => ({
    name,
    description: '',
    off: {},
    on: {},
    builtIn: false,
  }));
  const named: Record<string, BenchEvaluationOverrides> = Object.fromEntries(
    run.configurations.map((configuration) => [configuration.name, configuration.overrides]),
  );
  return planConfigurations(run.config_spec, factors, named);
}

/**
 * `summary.json` from the rows and the run record alone (so `xsb bench compare` recomputes exactly
 * what the run stored): per configuration pooled and per-system statistics, the paired comparisons
 * with Holm over the run, and for a factorial the Shapley values of `run.shapley_metric`.
 */
export function summarizeBenchRun(
  rows: readonly BenchRow[],
  run: BenchRun,
  options: { reference?: string | null } = {},
): BenchSummary {
  const plan = planOfRun(run);
  const metrics = presentMetrics(rows);
  const stats = {
    seed: run.bootstrap.seed,
    resamples: run.bootstrap.resamples,
    confidence: run.bootstrap.confidence,
  };
  const configurations = run.configurations.map((configuration) => {
    const mine = rows.filter((row) => row.configuration === configuration.name);
    return {
      name: configuration.name,
      factors: configuration.factors,
      settings_digest: configuration.settings_digest,
      ...groupStats(mine, metrics, stats, configuration.name),
      systems: run.systems.map((system) => ({
        system_id: system,
        ...groupStats(
          mine.filter((row) => row.system_id === system),
          metrics,
          stats,
          `${configuration.name}|${system}`,
        ),
      })),
    };
  });
  const reference = options.reference === undefined ? run.reference : options.reference;
  const comparisons = compareRows(
    rows,
    planPairs({
      configurations: run.configurations.map((configuration) => configuration.name),
      systems: run.systems,
      reference,
      ladder: plan.ladder,
      leaveOneOut: plan.leaveOneOut,
    }),
    { ...stats, diagBelow: run.diag_below },
  );
  const failed = rows.filter((row) => row.error !== null);
  return {
    run_id: run.run_id,
    split: run.split,
    metrics,
    configurations,
    comparisons,
    ladder: plan.ladder,
    leave_one_out: plan.leaveOneOut,
    shapley:
      plan.subsets.length > 0 ? shapleyOf(rows, plan.subsets, plan.factors, run.shapley_metric, stats) : null,
    left_out_factors: run.left_out_factors,
    rows: { total: rows.length, failed: failed.length },
    errors: failed.map((row) => ({
      configuration: row.configuration,
      system_id: row.system_id,
      case: row.case,
      audience: row.audience,
      error: row.error!,
    })),
  };
}
