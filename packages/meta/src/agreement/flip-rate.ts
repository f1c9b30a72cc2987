import { compareCodePoints } from '@xsb/core';
import { wilsonInterval } from '@xsb/stats';
import type { MetaRetestClass } from '../schemas/meta-retest';
import type { VerdictSet } from './read-verdict-set';

export interface FlipRates {
  repeats: number;
  classes: MetaRetestClass[];
  overall: MetaRetestClass;
  incomplete: number;
  flips: Array<{ item: string; class: string; values: string[] }>;
}

function row(label: string, items: ReadonlyArray<readonly string[]>, confidence: number): MetaRetestClass {
  const flipped = items.filter((values) => values.some((value) => value !== values[0])).length;
  const repeats = items[0]?.length ?? 0;
  let agree = 0;
  let pairs = 0;
  for (let i = 0; i < repeats; i += 1) {
    for (let j = i + 1; j < repeats; j += 1) {
      for (const values of items) {
        pairs += 1;
        if (values[i] === values[j]) agree += 1;
      }
    }
  }
  const { share, ci_low, ci_high } = wilsonInterval(flipped, items.length, confidence);
  return {
    class: label,
    n: items.length,
    flipped,
    flip_rate: share,
    ci_low,
    ci_high,
    mean_pairwise_agreement: pairs > 0 ? agree / pairs : null,
  };
}

/** Test–retest: an item flips when its N repeats do not all agree; the flip rate per class has a Wilson interval. */
export function flipRates(repeats: readonly VerdictSet[], confidence = 0.95): FlipRates {
  if (repeats.length === 0) throw new RangeError('flip rates need at least one verdict set');
  // Every item any repeat judged: one missing from some repeat (a failed repeat, a claim only some
  // repeats extracted) is incomplete, whichever repeat has it.
  const keys = new Map<string, string>();
  for (const set of repeats)
    for (const [key, item] of set.items) if (!keys.has(key)) keys.set(key, item.class);
  const complete: Array<{ key: string; class: string; values: string[] }> = [];
  let incomplete = 0;
  for (const [key, itemClass] of keys) {
    const values = repeats.map((set) => set.items.get(key)?.value);
    if (values.some((value) => value === undefined)) {
      incomplete += 1;
      continue;
    }
    complete.push({ key, class: itemClass, values: values as string[] });
  }
  const classes = [...new Set(complete.map((item) => item.class))].sort(compareCodePoints);
  return {
    repeats: repeats.length,
    classes: classes.map((label) =>
      row(
        label,
        complete.filter((item) => item.class === label).map((item) => item.values),
        confidence,
      ),
    ),
    overall: row(
      'overall',
      complete.map((item) => item.values),
      confidence,
    ),
    incomplete,
    flips: complete
      .filter((item) => item.values.some((value) => value !== item.values[0]))
      .map((item) => ({ item: item.key, class: item.class, values: item.values }))
      .sort((a, b) => compareCodePoints(a.item, b.item)),
  };
}
