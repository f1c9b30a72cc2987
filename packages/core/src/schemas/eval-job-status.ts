import { z } from 'zod';

/** `status.json` of one evaluation job (stage 5); one not `done` is redone on the next run. */
export const evalJobStatusSchema = z.looseObject({
  status: z.enum(['done', 'failed']),
  system: z.string().min(1),
  condition: z.string().min(1),
  audience: z.string().min(1),
  case_label: z.string().min(1),
  judge: z.string().min(1),
  judge_input_mode: z.enum(['text', 'image']).nullable(),
  error: z.string().optional(),
});
export type EvalJobStatus = z.infer<typeof evalJobStatusSchema>;
