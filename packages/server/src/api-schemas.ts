import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { metricsSummarySchema } from '@xsb/core';
import type { StoredJob } from '@xsb/jobs';
import {
  apiErrorSchema,
  apiEvaluationResultSchema,
  apiJobAcceptedSchema,
  apiJobListSchema,
  apiJobSchema,
  apiRubricResultSchema,
  apiRunListSchema,
  JOB_STATUSES,
} from '@xsb/jobs';

type DocumentedResponse = RouteConfig['responses'][string];

// The bodies are @xsb/core's schemas (the one source of every format), only named here for the document.
export const ErrorSchema = apiErrorSchema.meta({ id: 'Error' });
export const JobSchema = apiJobSchema.meta({ id: 'Job' });
export const JobListSchema = apiJobListSchema.meta({ id: 'JobList' });
export const JobAcceptedSchema = apiJobAcceptedSchema.meta({ id: 'JobAccepted' });
export const JobConflictSchema = apiErrorSchema.extend({ job: apiJobSchema }).openapi('JobConflict');
export const EvaluationResultSchema = apiEvaluationResultSchema.meta({ id: 'EvaluationResult' });
export const RubricResultSchema = apiRubricResultSchema.meta({ id: 'RubricResult' });
export const RunListSchema = apiRunListSchema.meta({ id: 'RunList' });
export const RunSummarySchema = metricsSummarySchema.meta({ id: 'RunSummary' });

export const JOB_ID_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

export const JobIdParam = z.object({
  id: z
    .string()
    .regex(JOB_ID_PATTERN, 'is not a job id')
    .openapi({ param: { name: 'id', in: 'path' }, example: '0b0f7a0e-4a8e-4f51-9c43-6f1e2d3c4b5a' }),
});
export const RunParam = z.object({
  run: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, 'may only hold letters A-Z a-z, digits and . _ -')
    .refine((value) => !value.includes('..'), 'may not hold ".."')
    .openapi({ param: { name: 'run', in: 'path' }, example: 'api' }),
});
export const JobListQuery = z.object({
  status: z
    .enum(JOB_STATUSES)
    .optional()
    .openapi({ param: { name: 'status', in: 'query' } }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' } }),
  cursor: z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' } }),
});

export function withLinks<T extends StoredJob>(
  job: T,
): T & { links: { self: string; result: string; events: string } } {
  const self = `/v1/jobs/${job.id}`;
  return { ...job, links: { self, result: `${self}/result`, events: `${self}/events` } };
}

export const RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer' as const } },
};
export const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description: "this request's id, also in error bodies and the server log",
    schema: { type: 'string' as const },
  },
};
const HEADERS_BY_STATUS: Record<
  number,
  Record<string, { description: string; schema: { type: 'string' | 'integer' } }>
> = {
  401: {
    'WWW-Authenticate': { description: 'Bearer realm="xsb"', schema: { type: 'string' } },
  },
  429: RETRY_AFTER_HEADER,
  503: RETRY_AFTER_HEADER,
  507: RETRY_AFTER_HEADER,
};

/** A JSON (or other `type`) success response with the request id header. */
export const jsonResponse = (schema: z.ZodType, description: string, type = 'application/json') => ({
  description,
  headers: REQUEST_ID_HEADER,
  content: { [type]: { schema } },
});

/** A `/v1` route (bearer token), documented through `createRoute`. */
export const v1Route = <R extends Omit<RouteConfig, 'security'>>(route: R) =>
  createRoute({ ...route, security: [{ bearer: [] }] });

/** The error responses of a route: the statuses it names, plus 500 and Node's own 431. */
export const errorResponses = (...statuses: number[]): Record<string, DocumentedResponse> =>
  Object.fromEntries(
    [...new Set([...statuses, 500, 431])].map((status) => [
      status,
      NODE_STATUSES.has(status)
        ? { description: ERROR_DESCRIPTIONS[status]! }
        : {
            description: ERROR_DESCRIPTIONS[status] ?? 'error',
            headers: { ...REQUEST_ID_HEADER, ...(HEADERS_BY_STATUS[status] ?? {}) },
            content: { 'application/json': { schema: ErrorSchema } },
          },
    ]),
  );

// Node's HTTP server answers these itself, before the app sees the request: no body, no headers of ours.
const NODE_STATUSES = new Set([408, 431]);

export const nodeResponses = () => ({ 431: { description: ERROR_DESCRIPTIONS[431]! } });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'a field is invalid (the message names it)',
  401: 'no bearer token, or not a valid one',
  403: 'the token lacks the scope of this route',
  404: "no such job (or not this token's) or run",
  408: "the request did not arrive in time (Node's HTTP server; no body)",
  409: 'the job is not done yet',
  413: 'the body (or the inflated deck) is larger than the limit',
  415: 'the deck is not a PPTX or PDF (judged by content), or the body is not multipart/form-data',
  431: "the request's headers are too large (Node's HTTP server; no body)",
  429: 'too many requests for this token, or too many failed authentications from this address; see Retry-After',
  500: 'the server failed (the detail is in its log under the request id)',
  503: 'the server is draining for shutdown, or its job queue does not answer; see Retry-After',
  507: "the server's disk is full; see Retry-After",
};
