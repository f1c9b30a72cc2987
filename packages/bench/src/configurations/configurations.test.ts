import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exitCodeFor } from '@xsb/core';
import { makeTempDir } from '@xsb/core/testing';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_FACTORS } from './bench-factors';
import { planConfigurations, selectFactors } from './configuration-sets';
import {
  applyOverrides,
  baseEvaluationSettings,
  evaluationVariant,
  settingsDigest,
} from './evaluation-settings';
import { assertServableConfigurations, selectServableFactors } from './judge-capable-factors';
import { loadBenchConfig } from './load-bench-config';

const factors = (names: string[]) => selectFactors(BUILT_IN_FACTORS, names);

describe('configuration sets', () => {
  it('builds the ladder cumulatively, leave-one-out from full, and every factorial subset', () => {
    const chosen = factors(['batch_size', 'weight_k', 'claims']);
    const ladder = planConfigurations('ladder', chosen, {});
    expect(ladder.configurations.map((c) => c.name)).toEqual([
      'L0:base',
      'L1:+batch_size',
      'L2:+weight_k',
      'L3:+claims',
    ]);
    expect(ladder.configurations[2]!.factors).toEqual({ batch_size: true, weight_k: true, claims: false });
    expect(ladder.configurations[2]!.overrides).toEqual({ batch_size: 1, weight_k: 1, claims: 'off' });
    expect(ladder.ladder.map((step) => `${step.from}→${step.to}:${step.factor}`)).toEqual([
      'L0:base→L1:+batch_size:batch_size',
      'L1:+batch_size→L2:+weight_k:weight_k',
      'L2:+weight_k→L3:+claims:claims',
    ]);
    const loo = planConfigurations('loo', chosen, {});
    expect(loo.configurations.map((c) => c.name)).toEqual(['full', '-batch_size', '-weight_k', '-claims']);
    expect(loo.configurations[3]!.overrides).toEqual({ batch_size: 1, weight_k: 1, claims: 'off' });
    const factorial = planConfigurations('factorial', chosen, {});
    expect(factorial.configurations.map((c) => c.name)).toEqual([
      'F:none',
      'F:batch_size',
      'F:weight_k',
      'F:batch_size+weight_k',
      'F:claims',
      'F:batch_size+claims',
      'F:weight_k+claims',
      'F:batch_size+weight_k+claims',
    ]);
    expect(factorial.subsets[5]).toEqual({
      mask: 5,
      name: 'F:batch_size+claims',
      factors: ['batch_size', 'claims'],
    });
  });

  it('runs named configurations and refuses unknown names, factors and overlaps', () => {
    const plan = planConfigurations('default,small', [], { small: { batch_size: 4 } });
    expect(plan.configurations).toEqual([
      { name: 'default', factors: {}, overrides: {} },
      { name: 'small', factors: {}, overrides: { batch_size: 4 } },
    ]);
    expect(() => planConfigurations('nope', [], {})).toThrow(/unknown configuration "nope"/);
    expect(() => factors(['batch_size', 'colour'])).toThrow(/unknown factor "colour"/);
    expect(() =>
      selectFactors(
        [
          ...BUILT_IN_FACTORS,
          { name: 'tiny', description: '', off: {}, on: { batch_size: 2 }, builtIn: false },
        ],
        ['batch_size', 'tiny'],
      ),
    ).toThrow(/both set batch_size/);
  });

  it('shares the default folder with xsb eval and keys variants by every setting but tau_a', () => {
    const base = baseEvaluationSettings('lexical');
    expect(evaluationVariant(base, 'lexical')).toBeUndefined();
    // tau_a alone does not need another folder: stage 6 recomputes metrics at any tau_a.
    expect(evaluationVariant(applyOverrides(base, { tau_a: 0.6 }), 'lexical')).toBeUndefined();
    const batch = applyOverrides(base, { batch_size: 1 });
    expect(evaluationVariant(batch, 'lexical')).toBe(settingsDigest(batch, 'lexical').slice(0, 12));
    expect(
      evaluationVariant(applyOverrides(base, { claim_settings: { max_claims: 10 } }), 'lexical'),
    ).toMatch(/^[0-9a-f]{12}$/);
    // A configuration with another judge than the run's gets its own folder.
    expect(evaluationVariant(applyOverrides(base, { judge: 'replay:/s.jsonl' }), 'lexical')).toMatch(
      /^[0-9a-f]{12}$/,
    );
  });
});

describe('factors the judge can serve', () => {
  const imageFactor = {
    name: 'slides',
    description: '',
    off: {},
    on: { judge_input: 'image' as const },
    builtIn: false,
  };
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return { code: exitCodeFor(error), message: String(error) };
    }
    return null;
  };

  it('leaves judge_input out of the default set of a judge that cannot read images, with the reason', () => {
    const { factors: chosen, leftOut } = selectServableFactors(BUILT_IN_FACTORS, 'lexical');
    expect(chosen.map((factor) => factor.name)).toEqual(['batch_size', 'weight_k', 'claims']);
    expect(leftOut).toEqual([
      {
        factor: 'judge_input',
        reason:
          'its "on" side sets judge_input=image (rendered slides) and the lexical judge cannot read images',
      },
    ]);
    // Every configuration of the default factorial is one the judge can run: no half-failed Shapley.
    const factorial = planConfigurations('factorial', chosen, {});
    expect(factorial.configurations).toHaveLength(8);
    expect(factorial.configurations.some((c) => c.overrides.judge_input === 'image')).toBe(false);
  });

  it('keeps every factor for a judge that reads images (asked of the judge, not its name)', () => {
    const { factors: chosen, leftOut } = selectServableFactors(BUILT_IN_FACTORS, 'replay:/stores/s.jsonl');
    expect(chosen.map((factor) => factor.name)).toEqual(['batch_size', 'judge_input', 'weight_k', 'claims']);
    expect(leftOut).toEqual([]);
    // A factor whose own side brings a judge that reads images is served under the lexical run judge.
    const withJudge = { ...imageFactor, on: { judge_input: 'image' as const, judge: 'replay:/s.jsonl' } };
    expect(selectServableFactors([withJudge], 'lexical').factors.map((f) => f.name)).toEqual(['slides']);
  });

  it('refuses a factor named explicitly that the judge cannot serve (exit 2), in --factors or bench.yaml', () => {
    const named = refusal(() =>
      selectServableFactors(BUILT_IN_FACTORS, 'lexical', ['claims', 'judge_input']),
    );
    expect(named?.code).toBe(2);
    expect(named?.message).toMatch(
      /factor "judge_input": .*lexical judge cannot read images.*Leave it out of the factors/,
    );
    expect(named?.message).not.toMatch(/--/);
    const declared = refusal(() => selectServableFactors([...BUILT_IN_FACTORS, imageFactor], 'lexical'));
    expect(declared?.code).toBe(2);
    expect(declared?.message).toMatch(/factor "slides": its "on" side sets judge_input=image/);
    expect(declared?.message).not.toMatch(/factor "judge_input"/);
    // Not named, not declared: nothing to refuse.
    expect(selectServableFactors([...BUILT_IN_FACTORS, imageFactor], 'lexical', ['claims']).leftOut).toEqual(
      [],
    );
  });

  it('refuses a named configuration that the judge cannot serve (exit 2)', () => {
    const plan = planConfigurations('default,slides', [], { slides: { judge_input: 'image' } });
    const refused = refusal(() => assertServableConfigurations(plan.configurations, 'lexical'));
    expect(refused?.code).toBe(2);
    expect(refused?.message).toMatch(/configuration "slides" sets judge_input=image/);
    expect(refusal(() => assertServableConfigurations(plan.configurations, 'replay:/s.jsonl'))).toBeNull();
  });
});

describe('bench.yaml', () => {
  it('reads configurations and factors, and refuses an unknown key by name (exit 2)', async () => {
    const { dir, cleanup } = await makeTempDir('xsb-bench-config-');
    try {
      const file = join(dir, 'bench.yaml');
      await writeFile(
        file,
        'configurations:\n  small: {batch_size: 4}\nfactors:\n  strict_tau:\n    off: {tau_a: 0.7}\n    on: {tau_a: 0.8}\n',
      );
      const config = await loadBenchConfig(file);
      expect(config.configurations).toEqual({ small: { batch_size: 4 } });
      expect(config.factors.map((f) => f.name)).toEqual([
        'batch_size',
        'judge_input',
        'weight_k',
        'claims',
        'strict_tau',
      ]);
      await writeFile(file, 'configurations:\n  small: {batch_sise: 4}\n');
      const error = await loadBenchConfig(file).catch((caught: unknown) => caught);
      expect(exitCodeFor(error)).toBe(2);
      expect(String(error)).toMatch(/bench\.yaml.*configurations\.small.*batch_sise/);
      await writeFile(file, 'factors:\n  claims: {on: {claims: "on"}}\n');
      await expect(loadBenchConfig(file)).rejects.toThrow(/factor "claims" is built in/);
      expect((await loadBenchConfig(join(dir, 'none.yaml'))).configurations).toEqual({});
    } finally {
      await cleanup();
    }
  });
});
