import { compareCodePoints, deriveSeed } from '@xsb/core';
import { bootstrapStatistic, cohenKappa, krippendorffAlphaNominal } from '@xsb/stats';
import type { MetaAgreement } from '../schemas/meta-agreement';
import type { VerdictSet } from './read-verdict-set';

export interface AgreementOptions {
  seed?: number;
  resamples?: number;
  confidence?: number;
}

export const DEFAULT_AGREEMENT_SEED = 12;

function statsFor(
  label: string,
  pairs: ReadonlyArray<{ a: string; b: string }>,
  options: Required<AgreementOptions>,
): MetaAgreement['overall'] {
  const a = pairs.map((pair) => pair.a);
  const b = pairs.map((pair) => pair.b);
  const pick = (values: readonly string[], indices: readonly number[]) =>
    indices.map((index) => values[index]!);
  const bootstrap = (name: string, statistic: (indices: readonly number[]) => number | null) => {
    const { value, ci_low, ci_high } = bootstrapStatistic(pairs.length, statistic, {
      seed: deriveSeed(options.seed, `${label}|${name}`),
      resamples: options.resamples,
      confidence: options.confidence,
    });
    return { value, ci_low, ci_high };
  };
  return {
    class: label,
    n: pairs.length,
    labels: [...new Set([...a, ...b])].sort(compareCodePoints),
    agreement: bootstrap('agreement', (indices) => cohenKappa(pick(a, indices), pick(b, indices)).agreement),
    kappa: bootstrap('kappa', (indices) => cohenKappa(pick(a, indices), pick(b, indices)).kappa),
    alpha: bootstrap(
      'alpha',
      (indices) => krippendorffAlphaNominal(indices.map((index) => [a[index]!, b[index]!])).alpha,
    ),
  };
}

/** Raw agreement, Cohen's kappa and Krippendorff's alpha over the items both sets hold (by key), bootstrapped over items. */
export function computeAgreement(
  a: VerdictSet,
  b: VerdictSet,
  options: AgreementOptions = {},
): MetaAgreement {
  const settings: Required<AgreementOptions> = {
    seed: options.seed ?? DEFAULT_AGREEMENT_SEED,
    resamples: options.resamples ?? 2000,
    confidence: options.confidence ?? 0.95,
  };
  const matched: Array<{ key: string; class: string; a: string; b: string }> = [];
  for (const [key, item] of a.items) {
    const other = b.items.get(key);
    if (other && other.class === item.class)
      matched.push({ key, class: item.class, a: item.value, b: other.value });
  }
  matched.sort((x, y) => compareCodePoints(x.key, y.key));
  const classes = [...new Set(matched.map((item) => item.class))].sort(compareCodePoints);
  return {
    a: a.source,
    b: b.source,
    judge_a: [...a.judges].sort(compareCodePoints),
    judge_b: [...b.judges].sort(compareCodePoints),
    matched_items: matched.length,
    only_in_a: a.items.size - matched.length,
    only_in_b: b.items.size - matched.length,
    bootstrap: settings,
    classes: classes.map((label) =>
      statsFor(
        label,
        matched.filter((item) => item.class === label),
        settings,
      ),
    ),
    overall: statsFor('overall', matched, settings),
    disagreements: matched
      .filter((item) => item.a !== item.b)
      .map((item) => ({ item: item.key, class: item.class, a: item.a, b: item.b })),
  };
}
