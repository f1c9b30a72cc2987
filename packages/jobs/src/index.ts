export { ApiDataLayout } from './api-data-layout';
export {
  AGNOSTIC_DECK_AUDIENCE,
  DEFAULT_API_RUN,
  type EvaluationFields,
  type EvaluationParameters,
  evaluationJobInput,
  type JudgeSettings,
  prepareEvaluationRequest,
  runEvaluationJob,
} from './evaluation-job';
export { fieldError, fieldOf, portableName } from './field-error';
export { JobEvents } from './job-events';
export {
  type DrainResult,
  defaultWorkerId,
  heartbeatForLease,
  type JobEventListener,
  type JobHandler,
  type JobHandlerContext,
  type JobRunner,
  type JobRunnerOptions,
  startJobRunner,
} from './job-runner';
export {
  ACTIVE_STATUSES,
  type CancelOutcome,
  type EnqueueInput,
  type EnqueueOutcome,
  type JobOutcome,
  type JobPage,
  type JobRequest,
  type JobSource,
  type JobStore,
  type ListJobsQuery,
  type StartedJob,
  type StoredJob,
} from './job-store';
export { createJsonLogger, discardLines, type JsonLogger } from './json-logger';
export { type OpenJobStoreOptions, openJobStore } from './open-job-store';
export { placeDeck } from './place-deck';
export { RedisJobStore, type RedisJobStoreOptions } from './redis-job-store';
export {
  prepareRubricRequest,
  type RubricFields,
  type RubricParameters,
  rubricJobInput,
  runRubricJob,
} from './rubric-job';
export { resolveServerJudge, type ServerJudge } from './server-judge';
export { SqliteJobStore, type SqliteJobStoreOptions } from './sqlite-job-store';
export { jobHandlers, type StartJobWorkerOptions, startJobWorker } from './start-job-worker';
export {
  cancelJob,
  removeStagedUpload,
  type SubmitJobOptions,
  type SubmitJobRequest,
  submitJob,
  sweepStagedUploads,
} from './submit-job';
