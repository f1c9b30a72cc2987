import { z } from 'zod';

/**
 * `runs/<run>/rank/<judge>/<mode>/<audience>/<case>.json`: the ranking judge on one case and audience. Each ask
 * lists the systems in the order the judge saw them (as Deck 1, 2, …) and its answer (systems best first; in
 * pairwise mode the preferred one first). `scores`: listwise, the mean Borda points
 * over the asks (n − 1 for first, 0 for last); pairwise, the share of a system's games it won.
 */
export const rankRecordSchema = z.strictObject({
  case: z.string().min(1),
  audience: z.string().min(1),
  mode: z.enum(['listwise', 'pairwise']),
  judge: z.string().min(1),
  k: z.number().int().min(1),
  seed: z.number().int(),
  input_hash: z.string().min(1),
  systems: z.array(z.string().min(1)).min(2),
  asks: z.array(z.strictObject({ shown: z.array(z.string()), answer: z.array(z.string()) })),
  scores: z.record(z.string(), z.number().nullable()),
  /** Pairwise: the share of pairs whose two orders got different winners (position bias); null listwise. */
  swap_disagreement: z.number().min(0).max(1).nullable(),
});
export type RankRecord = z.infer<typeof rankRecordSchema>;

/** `runs/<run>/rank/<judge>/pairwise/summary.json`: Bradley–Terry strengths over every case, with intervals. */
export const rankPairwiseSummarySchema = z.strictObject({
  judge: z.string().min(1),
  cases: z.number().int().min(0),
  pairs: z.number().int().min(0),
  /** Log-strengths centred on 0, with percentile-bootstrap intervals over cases. */
  systems: z.array(
    z.strictObject({
      system: z.string(),
      strength: z.number(),
      ci_low: z.number().nullable(),
      ci_high: z.number().nullable(),
    }),
  ),
  swap_disagreement: z.number().min(0).max(1).nullable(),
  bootstrap: z.strictObject({
    seed: z.number().int(),
    resamples: z.number().int().min(1),
    confidence: z.number(),
  }),
});
export type RankPairwiseSummary = z.infer<typeof rankPairwiseSummarySchema>;
