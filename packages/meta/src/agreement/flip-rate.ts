import { compareCodePoints } from '@xsb/core';
import { type ShareInterval, wilsonInterval } from '../stats/share-interval';
import type { VerdictSet } from './read-verdict-set';

export interface FlipRateRow {
  class: string;
  /** Items every repeat judged. */
  n: number;
  /** Items whose verdict was not the same in every repeat. */
  flipped: number;
  flip_rate: ShareInterval;
  /** Mean over repeat pairs of the share of items on which the pair agrees. */
  mean_pairwise_agreement: number | null;
}

export interface FlipRates {
  repeats: number;
  classes: FlipRateRow[];
  overall: FlipRateRow;
  /** Items missing from at least one repeat (left out of n). */
  incomplete: number;
}

function row(label: string, items: ReadonlyArray<readonly string[]>, confidence: number): FlipRateRow {
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
  return {
    class: label,
    n: items.length,
    flipped,
    flip_rate: wilsonInterval(flipped, items.length, confidence),
    mean_pairwise_agreement: pairs > 0 ? agree / pairs : null,
  };
}

/**
 * Test–retest: the same judge asked N times about the same items (each repeat its own verdict set).
 * An item flips when its repeats do not all agree; the flip rate per item class is the share of items
 * that flipped, with a Wilson interval. One repeat flips nothing by definition.
 */
export function flipRates(repeats: readonly VerdictSet[], confidence = 0.95): FlipRates {
  if (repeats.length === 0) throw new RangeError('flip rates need at least one verdict set');
  const first = repeats[0]!;
  const complete: Array<{ class: string; values: string[] }> = [];
  let incomplete = 0;
  for (const [key, item] of first.items) {
    const values = repeats.map((set) => set.items.get(key)?.value);
    if (values.some((value) => value === undefined)) {
      incomplete += 1;
      continue;
    }
    complete.push({ class: item.class, values: values as string[] });
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
  };
}
