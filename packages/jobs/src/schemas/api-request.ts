import { conditionSchema, portableNameSchema } from '@xsb/core';
import { z } from 'zod';

/** The uploaded deck as a job records it: identified by content, never by its file name. */
export const apiDeckUploadSchema = z.looseObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex sha256'),
  format: z.enum(['pptx', 'pdf']),
  bytes: z.number().int().positive(),
  /** The client's file name, for display only: it never becomes part of a path. */
  filename: z.string().max(255).nullable(),
});
export type ApiDeckUpload = z.infer<typeof apiDeckUploadSchema>;

/**
 * `POST /v1/evaluations` after validation: the deck is evaluated by stage 5–6 exactly as `xsb eval`
 * would, for each audience (an agnostic deck for every requested audience, a conditioned deck for its one).
 */
export const apiEvaluationParametersSchema = z.looseObject({
  run: portableNameSchema,
  system: portableNameSchema,
  condition: conditionSchema,
  case: portableNameSchema,
  /** Resolved: the request's list, or the case's valid audiences when the request named none. */
  audiences: z.array(portableNameSchema).min(1),
  judge: z.string().min(1),
});
export type ApiEvaluationParameters = z.infer<typeof apiEvaluationParametersSchema>;

/** An evaluation job's request: its parameters and the deck it evaluates. */
export const apiEvaluationRequestSchema = apiEvaluationParametersSchema.extend({ deck: apiDeckUploadSchema });
export type ApiEvaluationRequest = z.infer<typeof apiEvaluationRequestSchema>;

/** `POST /v1/rubric/evaluations` after validation: one deck judged against one PresentBench instance. */
export const apiRubricParametersSchema = z.looseObject({
  /** The instance's path relative to `<data>/rubric/instances/` (its id in the API), e.g. `appendix-cs`. */
  instance: z.string().min(1),
  system: portableNameSchema,
  judge: z.string().min(1),
});
export type ApiRubricParameters = z.infer<typeof apiRubricParametersSchema>;

export const apiRubricEvaluationRequestSchema = apiRubricParametersSchema.extend({
  deck: apiDeckUploadSchema,
});
export type ApiRubricEvaluationRequest = z.infer<typeof apiRubricEvaluationRequestSchema>;

/** Every error of the API: one shape, with a stable `code` and a message naming the field or file. */
export const apiErrorSchema = z.looseObject({
  error: z.looseObject({
    code: z.string().min(1),
    message: z.string().min(1),
    /** The job a 409 refers to (the one already queued or running). */
    job_id: z.string().optional(),
    /** The request's id, as in its `X-Request-Id` header and the server log. */
    request_id: z.string().optional(),
  }),
});
