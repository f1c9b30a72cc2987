import { UsageError } from '@xsb/core';
import { evalJudgeCapabilities } from '@xsb/eval';
import type { BenchEvaluationOverrides } from '../schemas/bench-config';
import type { BenchRun } from '../schemas/bench-run';
import type { FactorDefinition } from './bench-factors';
import { selectFactors } from './configuration-sets';

/** A factor the default set left out because the run's judge cannot serve it, and why. */
export type LeftOutFactor = BenchRun['left_out_factors'][number];

/**
 * Why a judge cannot evaluate these overrides, or null when it can. The judge is the overrides' own
 * or the run's; what it can do is asked of `@xsb/eval` (its capabilities), never read off its id.
 */
export function unservableReason(overrides: BenchEvaluationOverrides, runJudge: string): string | null {
  if (overrides.judge_input !== 'image') return null;
  const judge = overrides.judge ?? runJudge;
  if (evalJudgeCapabilities(judge).readsImages) return null;
  return `judge_input=image (rendered slides) and the ${judge} judge cannot read images`;
}

/** Why a factor cannot be run with this judge (either side unservable), or null. */
export function factorUnservableReason(factor: FactorDefinition, runJudge: string): string | null {
  for (const [side, overrides] of [
    ['on', factor.on],
    ['off', factor.off],
  ] as const) {
    const reason = unservableReason(overrides, runJudge);
    if (reason) return `its "${side}" side sets ${reason}`;
  }
  return null;
}

const remedy = (runJudge: string) =>
  `a judge that reads images (a replay store) serves it; the ${runJudge} judge would fail every row that needs it`;

/**
 * The factors of a generated set for this judge. Without `wanted`, the default set: every declared
 * factor the judge can serve; a built-in one it cannot is left out and named with the reason. A
 * factor named explicitly that the judge cannot serve — in `--factors`, or declared in bench.yaml
 * and taken by default — is a UsageError (exit 2, before any work), naming each such factor.
 */
export function selectServableFactors(
  declared: readonly FactorDefinition[],
  runJudge: string,
  wanted?: readonly string[],
): { factors: FactorDefinition[]; leftOut: LeftOutFactor[] } {
  const named = wanted && wanted.length > 0;
  const candidates = named ? selectFactors(declared, wanted) : [...declared];
  const leftOut: LeftOutFactor[] = [];
  const refused: string[] = [];
  const kept: string[] = [];
  for (const factor of candidates) {
    const reason = factorUnservableReason(factor, runJudge);
    if (reason === null) kept.push(factor.name);
    else if (named || !factor.builtIn) refused.push(`factor "${factor.name}": ${reason}`);
    else leftOut.push({ factor: factor.name, reason });
  }
  if (refused.length > 0)
    throw new UsageError(
      `${refused.join('; ')}. ${named ? 'Leave it out of the factors' : 'Name the factors to run'}; ${remedy(runJudge)}`,
    );
  return { factors: kept.length > 0 ? selectFactors(declared, kept) : [], leftOut };
}

/** Named configurations (`--configs a,b`) the judge cannot serve are refused up front, each by name. */
export function assertServableConfigurations(
  configurations: ReadonlyArray<{ name: string; overrides: BenchEvaluationOverrides }>,
  runJudge: string,
): void {
  const refused = configurations.flatMap((configuration) => {
    const reason = unservableReason(configuration.overrides, runJudge);
    return reason ? [`configuration "${configuration.name}" sets ${reason}`] : [];
  });
  if (refused.length > 0) throw new UsageError(`${refused.join('; ')}; ${remedy(runJudge)}`);
}
