import { z } from 'zod';
import type { KnownFields } from './known-fields';
import { metadataSchema } from './metadata';

export const evidenceSchema = z.looseObject({
  locator: z.string(),
  text: z.string().min(1),
});
export type Evidence = KnownFields<z.infer<typeof evidenceSchema>>;

/** One line of `probes_deduped.jsonl`: a source-grounded question-answer unit (spec 000). */
export const probeSchema = z.looseObject({
  probe_id: z.string().min(1),
  source_case_id: z.string().min(1),
  scene: z.string(),
  question: z.string().min(1),
  answer: z.string().min(1),
  evidence: z.array(evidenceSchema),
  level: z.number().int(),
  modality: z.string().min(1),
  theme: z.string().min(1),
  metadata: metadataSchema.default({}),
});
export type Probe = KnownFields<z.output<typeof probeSchema>>;
/** A probe as code builds it: `metadata` may be left out (the schema defaults it). */
export type ProbeInput = KnownFields<z.input<typeof probeSchema>>;
