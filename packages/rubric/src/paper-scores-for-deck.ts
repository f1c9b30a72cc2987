import { readDeck } from '@xsb/decks';
import type { Judge } from '@xsb/llm';
import { readMaterials } from './read-materials';
import type { RubricInstance } from './rubric-instance';
import { evaluateOrReuse, evaluationFilesFor } from './run-rubric';
import type { RubricVerdict } from './schemas/rubric-evaluation';
import { RUBRIC_DIMENSIONS } from './schemas/rubric-instance';
import { shownDimensionScore, shownPaperTotal } from './score-evaluation';
import { scoreEvaluation } from './score-report';

/** A deck's paper scores against one rubric instance (0..100), n/a (null) where the rubric shows n/a. */
export interface DeckPaperScores {
  instance: string;
  judge: string;
  total: number | null;
  dimensions: Record<string, number | null>;
  /** Every item's verdict, keyed `<dimension>.<class>.<n>`. */
  items: Record<string, RubricVerdict>;
}

/**
 * One deck judged against one instance, reusing the evaluation stored beside the deck for this judge while its
 * input hash holds (so the bench, the meta-evaluation and a study's alignment judge a deck once). Scores are the
 * paper's: a dimension's share of yes × 100, null when an item of it was not judged; the total is their mean,
 * null unless all five have one.
 */
export async function paperScoresForDeck(
  instance: RubricInstance,
  deckFile: string,
  judge: Judge,
): Promise<DeckPaperScores> {
  const { evaluation } = await evaluateOrReuse(
    { instance, deck: await readDeck(deckFile), materials: await readMaterials(instance.materials), judge },
    evaluationFilesFor(deckFile, judge.id),
  );
  const { paper } = scoreEvaluation(evaluation, { weights: instance.weights });
  const dimensions: Record<string, number | null> = {};
  for (const dimension of RUBRIC_DIMENSIONS) {
    const score = shownDimensionScore(paper.dimensions[dimension]);
    dimensions[dimension] = score === null ? null : score * 100;
  }
  return {
    instance: instance.id,
    judge: judge.id,
    total: shownPaperTotal(paper),
    dimensions,
    items: Object.fromEntries(
      evaluation.items.map((item) => [`${item.dimension}.${item.key}`, item.verdict]),
    ),
  };
}
