import { z } from 'zod';
import type { KnownFields } from './known-fields';
import { metadataSchema } from './metadata';

/** The utility values a judge may give; raw values are snapped to the nearest one (stage 3). */
export const UTILITY_LEVELS = [0.0, 0.3, 0.6, 1.0] as const;

/** One line of `weights/<audience>.jsonl`: the utility of one probe for one audience (spec 000). */
export const audienceWeightSchema = z.looseObject({
  probe_id: z.string().min(1),
  audience: z.string().min(1),
  utility_weight: z.number().min(0).max(1),
  reason: z.string(),
  metadata: metadataSchema.default({}),
});
export type AudienceWeight = KnownFields<z.output<typeof audienceWeightSchema>>;
/** A weight row as code builds it: `metadata` may be left out (the schema defaults it). */
export type AudienceWeightInput = KnownFields<z.input<typeof audienceWeightSchema>>;
