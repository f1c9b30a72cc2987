import { ConfigError, UsageError } from '@xsb/core';
import type { BenchEvaluationOverrides } from '../schemas/bench-config';
import type { FactorDefinition } from './bench-factors';

/** A configuration to run: its name, factor states (generated sets) and overrides. */
export interface PlannedConfiguration {
  name: string;
  factors: Record<string, boolean>;
  overrides: BenchEvaluationOverrides;
}

export interface ConfigurationPlan {
  spec: string;
  /** Factors of a generated set, in declared order (empty for named configurations). */
  factors: string[];
  configurations: PlannedConfiguration[];
  /** Ladder: rung k against rung k − 1, the factor added between them. */
  ladder: Array<{ from: string; to: string; factor: string }>;
  /** Leave-one-out: `full` against `-<factor>`. */
  leaveOneOut: Array<{ factor: string; full: string; without: string }>;
  /** Factorial: configuration name per subset mask (bit i = factors[i] on). */
  subsets: Array<{ mask: number; name: string; factors: string[] }>;
}

export const DEFAULT_CONFIGURATION = 'default';
export const GENERATED_SETS = ['ladder', 'loo', 'factorial'] as const;

function overridesFor(
  factors: readonly FactorDefinition[],
  on: ReadonlySet<string>,
): BenchEvaluationOverrides {
  const merged: BenchEvaluationOverrides = {};
  for (const factor of factors) {
    const { claim_settings: claimSettings, ...rest } = on.has(factor.name) ? factor.on : factor.off;
    Object.assign(merged, rest);
    if (claimSettings) merged.claim_settings = { ...merged.claim_settings, ...claimSettings };
  }
  return merged;
}

function keysOf(factor: FactorDefinition): Set<string> {
  const keys = new Set<string>();
  for (const side of [factor.on, factor.off])
    for (const [key, value] of Object.entries(side)) {
      if (key === 'claim_settings' && value)
        for (const inner of Object.keys(value)) keys.add(`claim_settings.${inner}`);
      else keys.add(key);
    }
  return keys;
}

/** Factors chosen by `--factors` (default: every declared factor), refusing unknown and overlapping ones. */
export function selectFactors(
  declared: readonly FactorDefinition[],
  wanted?: readonly string[],
): FactorDefinition[] {
  const chosen = wanted && wanted.length > 0 ? wanted : declared.map((factor) => factor.name);
  const byName = new Map(declared.map((factor) => [factor.name, factor]));
  const unknown = chosen.filter((name) => !byName.has(name));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown factor ${unknown.map((name) => JSON.stringify(name)).join(', ')} (known: ${[...byName.keys()].join(', ')})`,
    );
  if (new Set(chosen).size !== chosen.length) throw new UsageError('the factors name a factor twice');
  const selected = declared.filter((factor) => chosen.includes(factor.name));
  const owner = new Map<string, string>();
  for (const factor of selected)
    for (const key of keysOf(factor)) {
      const other = owner.get(key);
      if (other)
        throw new ConfigError(
          `factors "${other}" and "${factor.name}" both set ${key}; one factor per setting`,
        );
      owner.set(key, factor.name);
    }
  return selected;
}

/**
 * The configurations of `--configs`: `ladder` (rung 0 `L0:base` with every factor off, then
 * `L<k>:+<factor>` switching on one more factor in declared order), `loo` (`full`, then `-<factor>`
 * for each), `factorial` (every subset, `F:<factors joined by +>`, `F:none` for the empty one), or a
 * comma list of names from `bench.yaml` and the built-in `default` (no override).
 */
export function planConfigurations(
  spec: string,
  factors: readonly FactorDefinition[],
  named: Readonly<Record<string, BenchEvaluationOverrides>>,
): ConfigurationPlan {
  const names = factors.map((factor) => factor.name);
  const plan: ConfigurationPlan = {
    spec,
    factors: [],
    configurations: [],
    ladder: [],
    leaveOneOut: [],
    subsets: [],
  };
  const generated = (name: string, on: ReadonlySet<string>): PlannedConfiguration => ({
    name,
    factors: Object.fromEntries(names.map((factor) => [factor, on.has(factor)])),
    overrides: overridesFor(factors, on),
  });
  if ((GENERATED_SETS as readonly string[]).includes(spec)) {
    if (factors.length === 0) throw new UsageError(`configurations ${spec} need at least one factor`);
    plan.factors = names;
  }
  if (spec === 'ladder') {
    const on = new Set<string>();
    plan.configurations.push(generated('L0:base', on));
    names.forEach((factor, index) => {
      on.add(factor);
      const name = `L${index + 1}:+${factor}`;
      plan.ladder.push({ from: plan.configurations.at(-1)!.name, to: name, factor });
      plan.configurations.push(generated(name, on));
    });
    return plan;
  }
  if (spec === 'loo') {
    plan.configurations.push(generated('full', new Set(names)));
    for (const factor of names) {
      const name = `-${factor}`;
      plan.configurations.push(generated(name, new Set(names.filter((other) => other !== factor))));
      plan.leaveOneOut.push({ factor, full: 'full', without: name });
    }
    return plan;
  }
  if (spec === 'factorial') {
    if (names.length > 8)
      throw new UsageError(
        `a factorial over ${names.length} factors is 2^${names.length} configurations; choose at most 8 factors`,
      );
    for (let mask = 0; mask < 1 << names.length; mask += 1) {
      const on = names.filter((_, i) => mask & (1 << i));
      const name = `F:${on.length === 0 ? 'none' : on.join('+')}`;
      plan.subsets.push({ mask, name, factors: on });
      plan.configurations.push(generated(name, new Set(on)));
    }
    return plan;
  }
  const wanted = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (wanted.length === 0) throw new UsageError('the configuration list names no configuration');
  const known = [DEFAULT_CONFIGURATION, ...Object.keys(named)];
  for (const name of wanted) {
    if (!known.includes(name))
      throw new UsageError(
        `unknown configuration "${name}" (known: ${known.join(', ')}; or one of ${GENERATED_SETS.join(', ')})`,
      );
  }
  if (new Set(wanted).size !== wanted.length)
    throw new UsageError('the configuration list names a configuration twice');
  for (const name of wanted)
    plan.configurations.push({
      name,
      factors: {},
      overrides: name === DEFAULT_CONFIGURATION ? {} : named[name]!,
    });
  return plan;
}
