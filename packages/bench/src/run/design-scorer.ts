import { describeError, isXsbError } from '@xsb/core';
import { cachedDeckDesign, DESIGN_METRICS, type RenderSlidesOptions } from '@xsb/design';
import type { BenchRowDesign } from '../schemas/bench-row';

/**
 * The design metrics of each deck of a bench run, measured once per deck (its audiences and configurations
 * share them; the deck's cache beside it is shared with `xsb design` and the meta-evaluation). A deck that
 * cannot be rendered gets its error and null values; its row keeps every other metric.
 */
export class DesignScorer {
  private readonly done = new Map<string, Promise<BenchRowDesign>>();

  constructor(private readonly options: Omit<RenderSlidesOptions, 'keepRendersDir'> = {}) {}

  score(deckFile: string): Promise<BenchRowDesign> {
    let result = this.done.get(deckFile);
    if (!result) {
      result = this.measure(deckFile);
      this.done.set(deckFile, result);
    }
    return result;
  }

  private async measure(deckFile: string): Promise<BenchRowDesign> {
    try {
      const { deck } = await cachedDeckDesign(deckFile, this.options);
      return {
        ...(Object.fromEntries(DESIGN_METRICS.map((metric) => [metric, deck[metric]])) as Record<
          (typeof DESIGN_METRICS)[number],
          number | null
        >),
        error: null,
      };
    } catch (error) {
      if (!isXsbError(error)) throw error;
      return {
        ...(Object.fromEntries(DESIGN_METRICS.map((metric) => [metric, null])) as Record<
          (typeof DESIGN_METRICS)[number],
          null
        >),
        error: `design metrics: ${describeError(error)}`,
      };
    }
  }
}
