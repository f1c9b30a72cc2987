import { z } from 'zod';
import type { KnownFields } from './known-fields';
import { metadataSchema } from './metadata';

/** One line of `probe_scores.jsonl`: can the deck's visible content answer one probe (spec 000)? */
export const probeScoreSchema = z.looseObject({
  probe_id: z.string().min(1),
  covered: z.boolean(),
  answer: z.string(),
  cited_evidence: z.string(),
  metadata: metadataSchema.default({}),
});
export type ProbeScore = KnownFields<z.output<typeof probeScoreSchema>>;
/** A score row as code builds it: `metadata` may be left out (the schema defaults it). */
export type ProbeScoreInput = KnownFields<z.input<typeof probeScoreSchema>>;
