import { z } from 'zod';

/**
 * One line of `weights/<audience>.failures.jsonl` (stage 3): a probe the utility judge gave no valid
 * judgment for after its corrective retry. Such a probe has no weight row; it is never weighted 0.
 */
export const weightFailureSchema = z.looseObject({
  probe_id: z.string().min(1),
  audience: z.string().min(1),
  judge: z.string().min(1),
  /** The sample indexes (0-based, of k) without a valid judgment. */
  failed_samples: z.array(z.number().int().min(0)),
  reason: z.string().min(1),
});
export type WeightFailure = z.infer<typeof weightFailureSchema>;
