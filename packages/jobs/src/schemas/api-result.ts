import { JUDGE_KINDS, metricsSchema } from '@xsb/core';
import { z } from 'zod';
import { apiDeckUploadSchema } from './api-request';

const percent = z.number().refine(Number.isFinite, 'must be a finite number').nullable();

/** How a result's numbers were judged: `offline` is the deterministic `lexical` judge, never a model (the API refuses `record`). */
const judgeKindSchema = z.enum(JUDGE_KINDS);

/**
 * `GET /v1/jobs/{id}/result` of an evaluation: per audience the job's `metrics.json` (stage 6) with the
 * evaluation folder it came from, relative to the data folder.
 */
export const apiEvaluationResultSchema = z.looseObject({
  job_id: z.string().min(1),
  run: z.string().min(1),
  system: z.string().min(1),
  condition: z.string().min(1),
  case: z.string().min(1),
  judge: z.string().min(1),
  judge_kind: judgeKindSchema,
  deck: apiDeckUploadSchema.extend({ path: z.string().min(1) }),
  evaluations: z.array(
    z.looseObject({
      audience: z.string().min(1),
      outcome: z.enum(['evaluated', 'reused', 'failed']),
      evaluation_dir: z.string().min(1),
      metrics: metricsSchema.nullable(),
      error: z.string().nullable(),
    }),
  ),
});
export type ApiEvaluationResult = z.infer<typeof apiEvaluationResultSchema>;

/**
 * `GET /v1/jobs/{id}/result` of a rubric evaluation: both scores of `@xsb/rubric`'s `scoreEvaluation`
 * (the paper's mean of dimensions and PresentBench's weighted total) and where the evaluation lies.
 * Under the offline judge only deterministic check items are decided; totals stay null.
 */
export const apiRubricResultSchema = z.looseObject({
  job_id: z.string().min(1),
  instance: z.string().min(1),
  system: z.string().min(1),
  judge: z.string().min(1),
  judge_kind: judgeKindSchema,
  deck: apiDeckUploadSchema.extend({ path: z.string().min(1) }),
  evaluation_file: z.string().min(1),
  presentbench_result_file: z.string().min(1),
  reused: z.boolean(),
  item_count: z.number().int().min(0),
  scores: z.looseObject({
    paper: z.looseObject({ total_percent: percent, error_count: z.number().int().min(0) }),
    presentbench: z.looseObject({ total_percent: percent }),
  }),
});
export type ApiRubricResult = z.infer<typeof apiRubricResultSchema>;

/** `GET /v1/runs`: the runs under `<data>/runs/`, with what each has to show. */
export const apiRunListSchema = z.looseObject({
  runs: z.array(
    z.looseObject({
      run: z.string().min(1),
      has_summary: z.boolean(),
      has_report: z.boolean(),
      links: z.looseObject({ summary: z.string(), report: z.string() }),
    }),
  ),
});
