import { z } from 'zod';
import { apiEvaluationRequestSchema, apiRubricEvaluationRequestSchema } from './api-request';

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'canceled'] as const;
const jobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const JOB_KINDS = ['evaluation', 'rubric_evaluation'] as const;
const jobKindSchema = z.enum(JOB_KINDS);
export type JobKind = z.infer<typeof jobKindSchema>;

const isoTime = z.iso.datetime({ offset: true });

/** Where a job stands: `phase` names the step, `done`/`total` count its units (audiences, items). */
export const jobProgressSchema = z.looseObject({
  phase: z.string().min(1),
  done: z.number().int().min(0),
  total: z.number().int().min(0),
  message: z.string().nullable(),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;

/**
 * One execution attempt of a job by one worker. A worker killed mid-job leaves an attempt with
 * `finished_at: null`; the attempt that finishes the job is the only one with outcome `done`.
 */
export const jobExecutionSchema = z.looseObject({
  attempt: z.number().int().positive(),
  worker: z.string().min(1),
  started_at: isoTime,
  finished_at: isoTime.nullable(),
  /** null while running or when the worker died; `requeued` when a drain checkpointed it. */
  outcome: z.enum(['done', 'failed', 'canceled', 'requeued']).nullable(),
});
export type JobExecution = z.infer<typeof jobExecutionSchema>;

/**
 * A durable job (`GET /v1/jobs/{id}`, and a row of the job store). `request` is the validated request
 * of its kind; `result` is never inline (it is at `links.result`).
 */
export const apiJobSchema = z.looseObject({
  id: z.string().min(1),
  kind: jobKindSchema,
  status: jobStatusSchema,
  request: z.union([apiEvaluationRequestSchema, apiRubricEvaluationRequestSchema]),
  progress: jobProgressSchema,
  error: z.looseObject({ code: z.string().min(1), message: z.string().min(1) }).nullable(),
  attempts: z.number().int().min(0),
  /** The name (never the value) of the token that submitted the job. */
  submitted_by: z.string().nullable(),
  created_at: isoTime,
  started_at: isoTime.nullable(),
  finished_at: isoTime.nullable(),
  cancel_requested: z.boolean(),
  executions: z.array(jobExecutionSchema).optional(),
  links: z.looseObject({ self: z.string(), result: z.string(), events: z.string() }).optional(),
});
export type ApiJob = z.infer<typeof apiJobSchema>;

/** `GET /v1/jobs`: newest first; `next_cursor` is null on the last page. */
export const apiJobListSchema = z.looseObject({
  jobs: z.array(apiJobSchema),
  next_cursor: z.string().nullable(),
});

/** `202` of both evaluation endpoints, and the body of a `409` that returns the job already under way. */
export const apiJobAcceptedSchema = z.looseObject({
  job_id: z.string().min(1),
  job: apiJobSchema,
});
