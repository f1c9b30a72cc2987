import { rm } from 'node:fs/promises';
import { z } from '@hono/zod-openapi';
import { type SubmitJobRequest, submitJob } from '@xsb/jobs';
import type { Context } from 'hono';
import { ApiHttpError, invalidField } from '../api-error';
import {
  errorResponses,
  JobAcceptedSchema,
  JobConflictSchema,
  REQUEST_ID_HEADER,
  withLinks,
} from '../api-schemas';
import type { ApiApp, ApiAppOptions, ApiEnv } from '../create-api-app';
import { receiveUpload } from '../receive-upload';
import { ownsJob } from './job-routes';

const EVALUATION_FIELDS = ['run', 'system', 'condition', 'case', 'audiences', 'judge'] as const;
const RUBRIC_FIELDS = ['instance', 'system', 'judge'] as const;

const deckField = z
  .string()
  .openapi({ type: 'string', format: 'binary', description: 'the deck: PPTX or PDF (judged by content)' });

const EvaluationForm = z
  .object({
    deck: deckField,
    case: z.string().openapi({
      description: 'a case under <data>/sources with a probe bank',
      example: 'cs_raft_consensus',
    }),
    system: z.string().openapi({ description: 'the generator, [A-Za-z0-9._-]', example: 'my-generator' }),
    audiences: z.array(z.string()).optional().openapi({
      description: "repeat the field or separate by commas; default: the case's valid audiences",
    }),
    condition: z
      .enum(['audience_agnostic', 'audience_conditioned'])
      .optional()
      .openapi({ description: 'default audience_agnostic' }),
    judge: z.string().optional().openapi({
      description:
        'lexical (default, offline), anthropic:<model>, openai:<model>, replay:<store in the data folder>',
    }),
    run: z.string().optional().openapi({ description: 'default api' }),
  })
  .meta({ id: 'EvaluationForm' });

const RubricForm = z
  .object({
    deck: deckField,
    instance: z.string().openapi({
      description: 'path of an instance under <data>/rubric/instances',
      example: 'appendix-cs-overview-ch1',
    }),
    system: z.string().openapi({ example: 'my-generator' }),
    judge: z.string().optional().openapi({
      description: 'lexical (default: check items only), anthropic:<model>, openai:<model>, replay:<store>',
    }),
  })
  .meta({ id: 'RubricEvaluationForm' });

function documentUploadRoute(
  app: ApiApp,
  path: string,
  operationId: string,
  summary: string,
  form: z.ZodType,
): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path,
    operationId,
    summary,
    security: [{ bearer: [] }],
    request: { body: { required: true, content: { 'multipart/form-data': { schema: form } } } },
    responses: {
      202: {
        description: 'accepted: the job is queued',
        headers: {
          ...REQUEST_ID_HEADER,
          Location: { description: 'the job: /v1/jobs/{id}', schema: { type: 'string' } },
        },
        content: { 'application/json': { schema: JobAcceptedSchema } },
      },
      409: {
        description:
          'a job for the same deck, case, audiences, judge, run, system and condition is queued or running (returned), or another deck is being evaluated at the same place',
        content: { 'application/json': { schema: JobConflictSchema } },
      },
      ...errorResponses(400, 401, 403, 408, 413, 415, 429, 503, 507),
    },
  });
}

/** The form's text fields; one sent twice is refused rather than silently taking one of the values. */
function singleFields(fields: Map<string, string[]>, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names.filter((field) => field !== 'audiences')) {
    const values = fields.get(name) ?? [];
    if (values.length > 1) throw invalidField(`field "${name}": sent ${values.length} times; send it once`);
    if (values.length === 1) picked[name] = values[0]!;
  }
  return picked;
}

const evaluationFields = (fields: Map<string, string[]>): SubmitJobRequest => ({
  kind: 'evaluation',
  fields: {
    ...singleFields(fields, EVALUATION_FIELDS),
    // Repeated or comma-separated.
    audiences: (fields.get('audiences') ?? [])
      .flatMap((value) => value.split(','))
      .map((audience) => audience.trim())
      .filter(Boolean),
  },
});

const rubricFields = (fields: Map<string, string[]>): SubmitJobRequest => ({
  kind: 'rubric_evaluation',
  fields: singleFields(fields, RUBRIC_FIELDS),
});

// Each deck is held in memory while it is checked.
const INTAKE_CONCURRENCY = 4;

function intakeQueue() {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= INTAKE_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

/** `POST /v1/evaluations` and `POST /v1/rubric/evaluations`: the temp file is gone when the response is sent. */
export function registerEvaluationRoutes(
  app: ApiApp,
  options: ApiAppOptions & { bodyLimitBytes: number },
): void {
  const limit = intakeQueue();
  const handler =
    (fieldNames: readonly string[], toRequest: (fields: Map<string, string[]>) => SubmitJobRequest) =>
    async (c: Context<ApiEnv>) => {
      const upload = await receiveUpload(c.req.raw, {
        tmpDir: options.tmpDir,
        limitBytes: options.bodyLimitBytes,
        fileField: 'deck',
        fields: fieldNames,
      });
      try {
        const outcome = await limit(() =>
          submitJob(toRequest(upload.fields), {
            store: options.store,
            dataDir: options.dataDir,
            env: options.env,
            submittedBy: c.get('token')?.name ?? null,
            deck: { file: upload.file.path, filename: upload.file.filename },
            ...(options.systems ? { systems: options.systems } : {}),
          }),
        );
        const job = withLinks(outcome.job);
        if (outcome.outcome !== 'created' && !ownsJob(c.get('principal'), outcome.job))
          throw new ApiHttpError(
            409,
            'deck_location_busy',
            "another token's job is evaluating another deck at the same place; use another system or run, or retry later",
          );
        if (outcome.outcome === 'created') {
          c.header('Location', job.links.self);
          return c.json({ job_id: job.id, job }, 202);
        }
        const message =
          outcome.outcome === 'duplicate'
            ? `job ${job.id} for the same deck and parameters is ${job.status}; follow it instead`
            : `job ${job.id} is evaluating another deck at the same place (${job.status}); wait for it, cancel it, or use another system or run`;
        return c.json(
          {
            error: {
              code: outcome.outcome === 'duplicate' ? 'duplicate_job' : 'deck_location_busy',
              message,
              job_id: job.id,
            },
            job,
          },
          409,
        );
      } finally {
        await rm(upload.file.path, { force: true });
      }
    };
  documentUploadRoute(
    app,
    '/v1/evaluations',
    'createEvaluation',
    'Evaluate a deck (stage 5–6, as xsb eval)',
    EvaluationForm,
  );
  app.post('/v1/evaluations', handler(EVALUATION_FIELDS, evaluationFields));
  documentUploadRoute(
    app,
    '/v1/rubric/evaluations',
    'createRubricEvaluation',
    'Judge a deck against a PresentBench instance',
    RubricForm,
  );
  app.post('/v1/rubric/evaluations', handler(RUBRIC_FIELDS, rubricFields));
}
