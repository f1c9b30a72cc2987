import { bootstrapMeanInterval, type MeanInterval } from '@xsb/stats';

/**
 * Mean of after − before with a bootstrap over the per-deck differences (so the interval carries deck-to-deck
 * variation); pairs missing either side are skipped.
 */
export function pairedMeanChange(
  pairs: ReadonlyArray<{ before: number | null; after: number | null }>,
  options: { seed: number; resamples?: number; confidence?: number },
): MeanInterval {
  const differences: number[] = [];
  for (const pair of pairs) {
    if (pair.before === null || pair.after === null) continue;
    differences.push(pair.after - pair.before);
  }
  return bootstrapMeanInterval(differences, options);
}
