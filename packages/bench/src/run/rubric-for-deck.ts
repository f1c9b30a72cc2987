import { describeError, isXsbError } from '@xsb/core';
import { judgeFromClient, type LlmClient, offlineJudge } from '@xsb/llm';
import { paperScoresForDeck, type RubricInstance } from '@xsb/rubric';
import type { BenchRowRubric } from '../schemas/bench-row';

/**
 * The rubric result of one deck under one judge, evaluated once per run (an agnostic deck's rows of
 * every audience share it) and stored beside the deck by @xsb/rubric, which reuses it while its input
 * hash is unchanged. Scores are the paper's (dimension share of yes × 100; total = their mean), n/a
 * (null) where the rubric shows n/a: a dimension with an item not judged, and then the total; items
 * are keyed `<dimension>.<class>.<n>`. A failure is recorded in `error`, with null scores.
 */
export class RubricScorer {
  private readonly done = new Map<string, Promise<BenchRowRubric>>();

  constructor(
    private readonly client: LlmClient | null,
    private readonly judgeId: string,
  ) {}

  score(instance: RubricInstance, deckFile: string): Promise<BenchRowRubric> {
    const key = `${instance.id}\u0000${deckFile}`;
    let result = this.done.get(key);
    if (!result) {
      result = this.evaluate(instance, deckFile);
      this.done.set(key, result);
    }
    return result;
  }

  private async evaluate(instance: RubricInstance, deckFile: string): Promise<BenchRowRubric> {
    try {
      const judge = this.client
        ? judgeFromClient(this.judgeId, this.client)
        : { ...offlineJudge, id: this.judgeId };
      return { ...(await paperScoresForDeck(instance, deckFile, judge)), error: null };
    } catch (error) {
      if (!isXsbError(error)) throw error;
      return {
        instance: instance.id,
        judge: this.judgeId,
        total: null,
        dimensions: {},
        items: {},
        error: describeError(error),
      };
    }
  }
}
