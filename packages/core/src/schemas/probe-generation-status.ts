import { z } from 'zod';

const count = z.number().int().min(0);

/** `probe_generation_status.json`: counts, chunk settings and judge id of one case's probe bank (stage 2). */
export const probeGenerationStatusSchema = z.looseObject({
  case_id: z.string().min(1),
  status: z.enum(['complete', 'failed']),
  judge: z.string().min(1),
  k: z.number().int().min(1),
  counts: z.looseObject({
    generated: count,
    filtered: count,
    ungrounded: count,
    duplicates: count,
    final: count,
  }),
  chunking: z.looseObject({
    source_chars: z.number().int(),
    chunk_chars: z.number().int(),
    chunk_overlap: z.number().int(),
    chunk_count: count,
  }),
  errors: z.array(z.string()).default([]),
});
export type ProbeGenerationStatus = z.infer<typeof probeGenerationStatusSchema>;
