import { z } from 'zod';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

export const claimLabelSchema = z.enum(['supported', 'contradicted', 'unsupported']);
export type ClaimLabel = z.infer<typeof claimLabelSchema>;

/** A source snippet retrieved (BM25) for one claim. */
export const claimSnippetSchema = z.looseObject({
  chunk_id: z.string().min(1),
  text: z.string(),
  score: finite,
});

/** One atomic factual claim of a deck and its verification label. */
export const verifiedClaimSchema = z.looseObject({
  claim_id: z.string().min(1),
  slide_index: z.number().int().min(1),
  text: z.string().min(1),
  label: claimLabelSchema,
  rationale: z.string(),
  snippets: z.array(claimSnippetSchema),
});
export type VerifiedClaim = z.infer<typeof verifiedClaimSchema>;

/** `correctness.json` (stage 5): never depends on the audience. */
export const correctnessSchema = z.looseObject({
  correctness: finite.min(0).max(1).nullable(),
  null_reason: z.string().optional(),
  formula: z.string().min(1),
  judge: z.string().min(1),
  deck_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  source_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  cache_key: z.string().regex(/^[0-9a-f]{64}$/),
  settings: z.record(z.string(), z.unknown()),
  claim_count: z.number().int().min(0),
  supported_count: z.number().int().min(0),
  contradicted_count: z.number().int().min(0),
  unsupported_count: z.number().int().min(0),
  claims: z.array(verifiedClaimSchema),
});
export type Correctness = z.infer<typeof correctnessSchema>;
