import { existsSync } from 'node:fs';
import { type Deck, hashFile, readJson, writeJson } from '@xsb/core';
import type { LlmClient } from '@xsb/llm';
import { z } from 'zod';
import { judgeHolistic } from './holistic-judge';
import { evaluationFilesFor } from './run-rubric';

const holisticCacheSchema = z.looseObject({
  deck_sha256: z.string(),
  judge: z.string(),
  overall: z.number(),
  content: z.number(),
  design: z.number(),
  coherence: z.number(),
});

/** The holistic baseline's scores of one deck (1–5; overall is the mean of the three aspects). */
export type HolisticScores = Pick<
  z.infer<typeof holisticCacheSchema>,
  'overall' | 'content' | 'design' | 'coherence'
>;

/**
 * A deck's holistic (PPTEval-style) scores under one judge, cached beside the deck (named like the rubric's
 * evaluation file, `.xsb_holistic_<judge>.json`, so judges never share an entry) and judged again only when the
 * deck's bytes change: the meta-evaluation and a study's alignment ask once between them.
 */
export async function cachedHolisticScores(
  deckFile: string,
  deck: Deck,
  judgeId: string,
  client: LlmClient,
): Promise<HolisticScores> {
  const cache = evaluationFilesFor(deckFile, judgeId).evaluation.replace(
    /\.xsb_rubric_([^/\\]*)\.json$/,
    '.xsb_holistic_$1.json',
  );
  const sha = await hashFile(deckFile);
  const cached = existsSync(cache)
    ? await readJson(cache, holisticCacheSchema).catch(() => undefined)
    : undefined;
  if (cached && cached.deck_sha256 === sha && cached.judge === judgeId) return cached;
  const judged = await judgeHolistic(client, deck);
  return writeJson(cache, holisticCacheSchema, {
    deck_sha256: sha,
    judge: judgeId,
    overall: judged.overall,
    content: judged.content.score,
    design: judged.design.score,
    coherence: judged.coherence.score,
  });
}
