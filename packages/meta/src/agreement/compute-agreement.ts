import { compareCodePoints, deriveSeed } from '@xsb/core';
import type { MetaAgreement } from '../schemas/meta-agreement';
import { bootstrapStatistic, type StatisticInterval } from '../stats/bootstrap-statistic';
import { cohenKappa } from '../stats/cohen-kappa';
import { krippendorffAlphaNominal } from '../stats/krippendorff-alpha';
import type { VerdictSet } from './read-verdict-set';

export interface AgreementOptions {
  seed?: number;
  resamples?: number;
  confidence?: number;
}

export const DEFAULT_AGREEMENT_SEED = 12;

const interval = (value: StatisticInterval) => ({
  value: value.value,
  ci_low: value.ci_low,
  ci_high: value.ci_high,
});

function statsFor(
  label: string,
  pairs: ReadonlyArray<{ a: string; b: string }>,
  options: Required<AgreementOptions>,
): MetaAgreement['overall'] {
  const a = pairs.map((pair) => pair.a);
  const b = pairs.map((pair) => pair.b);
  const pick = (values: readonly string[], indices: readonly number[]) =>
    indices.map((index) => values[index]!);
  const settings = (name: string) => ({
    seed: deriveSeed(options.seed, `${label}|${name}`),
    resamples: options.resamples,
    confidence: options.confidence,
  });
  return {
    class: label,
    n: pairs.length,
    labels: [...new Set([...a, ...b])].sort(compareCodePoints),
    agreement: interval(
      bootstrapStatistic(
        pairs.length,
        (indices) => cohenKappa(pick(a, indices), pick(b, indices)).agreement,
        settings('agreement'),
      ),
    ),
    kappa: interval(
      bootstrapStatistic(
        pairs.length,
        (indices) => cohenKappa(pick(a, indices), pick(b, indices)).kappa,
        settings('kappa'),
      ),
    ),
    alpha: interval(
      bootstrapStatistic(
        pairs.length,
        (indices) => krippendorffAlphaNominal(indices.map((index) => [a[index]!, b[index]!])).alpha,
        settings('alpha'),
      ),
    ),
  };
}

/**
 * Agreement of two verdict sets over the items both hold (matched by key): raw agreement, Cohen's
 * kappa and Krippendorff's alpha (nominal), per item class and over all items, each with a percentile
 * bootstrap interval over items; plus every disagreement.
 */
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
