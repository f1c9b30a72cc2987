import { existsSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { hashCanonicalJson, InputError, type StageEventListener } from '@xsb/core';
import { readDeck } from '@xsb/decks';
import { createJudge, providerLimitsFor } from '@xsb/llm';
import {
  evaluateOrReuse,
  evaluationFilesFor,
  findInstances,
  type InstanceEntry,
  readMaterials,
  scoreEvaluation,
} from '@xsb/rubric';
import { ApiDataLayout } from './api-data-layout';
import type { JudgeSettings } from './evaluation-job';
import { fieldError, listNames, portableName } from './field-error';
import type { JobHandlerContext } from './job-runner';
import type { EnqueueInput, StoredJob } from './job-store';
import { placeDeck } from './place-deck';
import {
  type ApiDeckUpload,
  type ApiRubricParameters,
  apiRubricEvaluationRequestSchema,
} from './schemas/api-request';
import type { ApiRubricResult } from './schemas/api-result';
import { resolveServerJudge } from './server-judge';

/** The form fields of `POST /v1/rubric/evaluations`. */
export interface RubricFields {
  instance?: string;
  system?: string;
  judge?: string;
}

export type RubricParameters = ApiRubricParameters;

async function instancesUnder(dataDir: string): Promise<InstanceEntry[]> {
  const root = new ApiDataLayout(dataDir).rubricInstancesDir();
  return existsSync(root) ? findInstances(root) : [];
}

async function findInstance(dataDir: string, id: string): Promise<InstanceEntry | undefined> {
  return (await instancesUnder(dataDir)).find((entry) => entry.relativePath === id);
}

/**
 * Checks a rubric request: `instance` is the path of an instance under `<data>/rubric/instances/`
 * (each part a portable name), `system` a portable name, the judge usable here.
 */
export async function prepareRubricRequest(
  dataDir: string,
  fields: RubricFields,
  env: Record<string, string | undefined>,
): Promise<RubricParameters> {
  const id = fields.instance ?? '';
  if (id === '') throw fieldError('instance', 'is required');
  for (const part of id.split('/')) portableName('instance', part);
  const system = portableName('system', fields.system);
  if (!(await findInstance(dataDir, id))) {
    const known = (await instancesUnder(dataDir)).map((entry) => entry.relativePath);
    throw fieldError(
      'instance',
      `unknown instance "${id}" under rubric/instances (known: ${listNames(known)})`,
      'unknown_instance',
    );
  }
  return { instance: id, system, judge: resolveServerJudge(fields.judge, dataDir, env).spec };
}

export function rubricJobInput(
  id: string,
  parameters: RubricParameters,
  deck: ApiDeckUpload,
  submittedBy: string | null,
): EnqueueInput {
  return {
    id,
    kind: 'rubric_evaluation',
    request: { ...parameters, deck },
    dedupeKey: hashCanonicalJson({
      kind: 'rubric_evaluation',
      deck: deck.sha256,
      // Per token: another token's identical request is its own job, not a view into this one.
      submitted_by: submittedBy,
      instance: parameters.instance,
      judge: parameters.judge,
      system: parameters.system,
    }),
    location: { key: ['rubric', parameters.system, parameters.instance].join('/'), digest: deck.sha256 },
    submittedBy,
  };
}

/** The job's progress (one tick per item) and its event stream, from the stage's events. */
function rubricEvents(context: JobHandlerContext): StageEventListener {
  return (event) => {
    if (event.type === 'stage-started' || event.type === 'unit-done') {
      const done = event.type === 'unit-done' ? event.done : 0;
      context.reportProgress({ phase: 'judging_items', done, total: event.total, message: null });
    }
    context.onEvent(event);
  };
}

/**
 * Runs one accepted rubric evaluation: the deck goes to the PresentBench results layout under
 * `<data>/rubric/results/<system>/`, then `evaluateOrReuse` judges it (reusing an evaluation of the
 * same inputs) and `scoreEvaluation` gives both scores. The offline judge decides only check items.
 */
export async function runRubricJob(
  job: StoredJob,
  context: JobHandlerContext,
  dataDir: string,
  settings: JudgeSettings,
): Promise<ApiRubricResult> {
  const request = apiRubricEvaluationRequestSchema.parse(job.request);
  const judge = resolveServerJudge(request.judge, dataDir, settings.env);
  const entry = await findInstance(dataDir, request.instance);
  if (!entry)
    throw new InputError(`instance "${request.instance}" is no longer under rubric/instances`, {
      code: 'unknown_instance',
    });
  const instance = await entry.load();
  const layout = new ApiDataLayout(dataDir);
  const deckPath = await placeDeck(
    layout.upload(job.id, request.deck.format),
    layout.rubricDeckFile(request.system, request.instance, request.deck.format),
    ['slides.pptx', 'slides.pdf'],
  );
  context.signal.throwIfAborted();
  const limits = providerLimitsFor(judge.runtimeSpec, settings.providers);
  // Built from the store's path; recorded (and named in files) by its public spec.
  const rubricJudge = {
    ...createJudge(judge.runtimeSpec, {
      env: settings.env,
      ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
      ...(settings.noCache !== undefined ? { noCache: settings.noCache } : {}),
      ...(limits ? { limits } : {}),
      stage: 'rubric',
    }),
    id: judge.spec,
  };
  const files = evaluationFilesFor(deckPath, judge.spec);
  const { evaluation, outcome, presentbench } = await evaluateOrReuse(
    {
      instance,
      deck: await readDeck(deckPath),
      materials: await readMaterials(instance.materials),
      judge: rubricJudge,
      onEvent: rubricEvents(context),
    },
    files,
  );
  const scores = scoreEvaluation(evaluation, { weights: instance.weights });
  const rel = (path: string) => relative(dataDir, path).split(sep).join('/');
  return {
    job_id: job.id,
    instance: request.instance,
    system: request.system,
    judge: judge.spec,
    judge_kind: judge.kind,
    deck: { ...request.deck, path: rel(deckPath) },
    evaluation_file: rel(files.evaluation),
    presentbench_result_file: rel(presentbench.result),
    reused: outcome === 'reused',
    item_count: evaluation.items.length,
    scores: { paper: { ...scores.paper }, presentbench: { ...scores.presentbench } },
  };
}
