import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  conditionSchema,
  hashCanonicalJson,
  InputError,
  isXsbError,
  metricsSchema,
  type ProviderLimits,
  RunLayout,
  readJson,
} from '@xsb/core';
import { runEvaluation } from '@xsb/eval';
import { providerLimitsFor } from '@xsb/llm';
import { loadSourceCase } from '@xsb/sources';
import { ApiDataLayout } from './api-data-layout';
import { fieldError, listNames, portableName } from './field-error';
import type { JobHandlerContext } from './job-runner';
import type { EnqueueInput, StoredJob } from './job-store';
import { placeDeck } from './place-deck';
import {
  type ApiDeckUpload,
  type ApiEvaluationParameters,
  type ApiEvaluationRequest,
  apiEvaluationRequestSchema,
} from './schemas/api-request';
import type { ApiEvaluationResult } from './schemas/api-result';
import { resolveServerJudge } from './server-judge';

/** The API's run when a request names none. */
export const DEFAULT_API_RUN = 'api';
/** The folder audience of an agnostic deck the API files (as `xsb decks import` does). */
export const AGNOSTIC_DECK_AUDIENCE = 'all';

/** The form fields of `POST /v1/evaluations`, as strings (audiences: a list or comma-separated). */
export interface EvaluationFields {
  run?: string;
  system?: string;
  condition?: string;
  case?: string;
  audiences?: string[];
  judge?: string;
}

export type EvaluationParameters = ApiEvaluationParameters;

async function knownCases(dataDir: string): Promise<string[]> {
  try {
    return (await readdir(join(dataDir, 'sources'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Checks an evaluation request against the data folder before anything is stored: every name is a
 * portable path part, the case exists with a probe bank, each audience is one of the case's valid
 * audiences (none given: all of them), a conditioned deck has exactly one, and the judge is usable
 * here. Each problem is a field error naming the field and the value.
 */
export async function prepareEvaluationRequest(
  dataDir: string,
  fields: EvaluationFields,
  env: Record<string, string | undefined>,
): Promise<EvaluationParameters> {
  const run = portableName('run', fields.run, DEFAULT_API_RUN);
  const system = portableName('system', fields.system);
  const condition = conditionSchema.safeParse(fields.condition || 'audience_agnostic');
  if (!condition.success)
    throw fieldError(
      'condition',
      `${JSON.stringify(fields.condition)} is not a condition (expected ${conditionSchema.options.join(' or ')})`,
    );
  const caseLabel = portableName('case', fields.case);
  let validAudiences: string[];
  try {
    validAudiences = (await loadSourceCase(dataDir, caseLabel)).metadata.valid_audiences;
  } catch (error) {
    if (isXsbError(error) && error.code === 'no_case_folder')
      throw fieldError(
        'case',
        `unknown case "${caseLabel}" (known: ${listNames(await knownCases(dataDir))})`,
        'unknown_case',
      );
    if (isXsbError(error)) throw fieldError('case', `case "${caseLabel}" cannot be used: ${error.message}`);
    throw error;
  }
  if (!existsSync(new RunLayout(dataDir).probesFile(caseLabel)))
    throw fieldError('case', `case "${caseLabel}" has no probe bank yet (generate its probes first)`);
  const requested = (fields.audiences ?? []).filter((value) => value !== '');
  const audiences =
    requested.length === 0 ? validAudiences : requested.map((a) => portableName('audiences', a));
  const unknown = audiences.filter((audience) => !validAudiences.includes(audience));
  if (unknown.length > 0)
    throw fieldError(
      'audiences',
      `unknown audience ${unknown.map((a) => `"${a}"`).join(', ')} for case "${caseLabel}" (valid: ${listNames(validAudiences)})`,
      'unknown_audience',
    );
  if (new Set(audiences).size !== audiences.length) throw fieldError('audiences', 'names an audience twice');
  if (condition.data === 'audience_conditioned' && audiences.length !== 1)
    throw fieldError(
      'audiences',
      `a conditioned deck is made for one audience; name exactly one (got ${audiences.length})`,
    );
  const judge = resolveServerJudge(fields.judge, dataDir, env);
  return { run, system, condition: condition.data, case: caseLabel, audiences, judge: judge.spec };
}

function deckAudienceOf(request: EvaluationParameters): string {
  return request.condition === 'audience_conditioned' ? request.audiences[0]! : AGNOSTIC_DECK_AUDIENCE;
}

/**
 * What the store needs to enqueue an evaluation: the dedupe key is the deck digest with case, audience
 * set, judge, run, system and condition; the location is the deck folder the job writes.
 */
export function evaluationJobInput(
  id: string,
  parameters: EvaluationParameters,
  deck: ApiDeckUpload,
  submittedBy: string | null,
): EnqueueInput {
  const request: ApiEvaluationRequest = { ...parameters, deck };
  const { run, system, condition } = parameters;
  return {
    id,
    kind: 'evaluation',
    request,
    dedupeKey: hashCanonicalJson({
      kind: 'evaluation',
      deck: deck.sha256,
      // Per token: another token's identical request is its own job, not a view into this one.
      submitted_by: submittedBy,
      case: parameters.case,
      audiences: [...parameters.audiences].sort(),
      judge: parameters.judge,
      run,
      system,
      condition,
    }),
    location: {
      key: ['evaluation', run, system, condition, deckAudienceOf(parameters), parameters.case].join('/'),
      digest: deck.sha256,
    },
    submittedBy,
  };
}

/** What the server lends every judge: its keys, the shared response cache and provider limits. */
export interface JudgeSettings {
  env: Record<string, string | undefined>;
  cacheDir?: string;
  noCache?: boolean;
  providers?: Record<string, ProviderLimits>;
}

/** Agnostic decks of the same system and case in other folder audiences: `runEvaluation` would judge them too. */
async function otherAgnosticDecks(layout: RunLayout, request: ApiEvaluationRequest): Promise<string[]> {
  if (request.condition !== 'audience_agnostic') return [];
  const root = join(layout.decksRoot(request.run), request.system, 'audience_agnostic');
  if (!existsSync(root)) return [];
  const folders = (await readdir(root, { withFileTypes: true }))
    .filter(
      (entry) => entry.isDirectory() && entry.name !== AGNOSTIC_DECK_AUDIENCE && !entry.name.startsWith('.'),
    )
    .map((entry) => join(root, entry.name, request.case))
    .filter((dir) => existsSync(dir));
  return folders;
}

const dataRelative = (dataDir: string, path: string) => relative(dataDir, path).split(sep).join('/');

/**
 * Runs one accepted evaluation: the staged deck is placed in the run's deck tree
 * (`runs/<run>/decks/<system>/<condition>/<audience|all>/<case>/deck.<ext>`), then stage 5–6 runs
 * through `runEvaluation` filtered to exactly this deck, one audience at a time (a cancel takes effect
 * between audiences), with the same artifacts as `xsb eval`. Any failed audience fails the job (its
 * `status.json` says why); the result holds each audience's `metrics.json`.
 */
export async function runEvaluationJob(
  job: StoredJob,
  context: JobHandlerContext,
  dataDir: string,
  settings: JudgeSettings,
): Promise<ApiEvaluationResult> {
  const request = apiEvaluationRequestSchema.parse(job.request);
  const layout = new RunLayout(dataDir);
  const judge = resolveServerJudge(request.judge, dataDir, settings.env);
  const deckDir = layout.deckDir({
    run: request.run,
    system: request.system,
    condition: request.condition,
    audience: deckAudienceOf(request),
    caseLabel: request.case,
  });
  const others = await otherAgnosticDecks(layout, request);
  if (others.length > 0)
    throw new InputError(
      `run "${request.run}" already holds another agnostic deck of system "${request.system}" for case "${request.case}" (${others.map((dir) => dataRelative(dataDir, dir)).join(', ')}); use another system or run`,
      { code: 'deck_location_conflict' },
    );
  const total = request.audiences.length;
  context.reportProgress({ phase: 'placing_deck', done: 0, total, message: null });
  const deckFile = await placeDeck(
    new ApiDataLayout(dataDir).upload(job.id, request.deck.format),
    join(deckDir, `deck.${request.deck.format}`),
    ['deck.pptx', 'deck.pdf'],
  );
  const limits = providerLimitsFor(judge.runtimeSpec, settings.providers);
  const evaluations: ApiEvaluationResult['evaluations'] = [];
  for (const [index, audience] of request.audiences.entries()) {
    context.signal.throwIfAborted();
    context.reportProgress({ phase: 'evaluating', done: index, total, message: audience });
    evaluations.push(
      await evaluateAudience(
        { dataDir, request, judgeSpec: judge.runtimeSpec, deckFile, deckDir, settings, limits, context },
        audience,
      ),
    );
  }
  context.reportProgress({ phase: 'done', done: total, total, message: null });
  const failed = evaluations.filter((e) => e.outcome === 'failed');
  if (failed.length > 0)
    throw new InputError(failed.map((e) => `${e.audience}: ${e.error}`).join('; '), {
      code: 'evaluation_failed',
    });
  return {
    job_id: job.id,
    run: request.run,
    system: request.system,
    condition: request.condition,
    case: request.case,
    judge: judge.spec,
    judge_kind: judge.kind,
    deck: { ...request.deck, path: dataRelative(dataDir, deckFile) },
    evaluations,
  };
}

/** One audience of an accepted evaluation: `runEvaluation` filtered to the placed deck, and its outcome. */
async function evaluateAudience(
  input: {
    dataDir: string;
    request: ApiEvaluationRequest;
    judgeSpec: string;
    deckFile: string;
    deckDir: string;
    settings: JudgeSettings;
    limits: ReturnType<typeof providerLimitsFor>;
    context: JobHandlerContext;
  },
  audience: string,
): Promise<ApiEvaluationResult['evaluations'][number]> {
  const { dataDir, request, settings, deckFile, deckDir, limits } = input;
  const outcome = await runEvaluation({
    dataDir,
    run: request.run,
    judge: input.judgeSpec,
    filters: {
      systems: [request.system],
      conditions: [request.condition],
      cases: [request.case],
      audiences: [audience],
    },
    env: settings.env,
    ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
    ...(settings.noCache !== undefined ? { noCache: settings.noCache } : {}),
    ...(limits ? { limits } : {}),
    onEvent: input.context.onEvent,
  });
  const mine = outcome.results.find((r) => r.job.deckFile === deckFile && r.job.audience === audience);
  const discovery = outcome.discoveryFailures.find((f) => f.where === deckDir || f.where === deckFile);
  const evaluationDir = new RunLayout(dataDir).evaluationDir({
    run: request.run,
    system: request.system,
    condition: request.condition,
    audience,
    caseLabel: request.case,
  });
  const metricsFile = join(evaluationDir, 'metrics.json');
  const error =
    mine?.error ??
    discovery?.error.message ??
    (mine ? null : `the deck ${dataRelative(dataDir, deckFile)} was not evaluated for ${audience}`);
  return {
    audience,
    outcome: mine && !error ? mine.outcome : 'failed',
    evaluation_dir: dataRelative(dataDir, evaluationDir),
    metrics: !error && existsSync(metricsFile) ? await readJson(metricsFile, metricsSchema) : null,
    error,
  };
}
