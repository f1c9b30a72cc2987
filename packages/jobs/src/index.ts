export { ApiDataLayout } from './api-data-layout';
export { prepareEvaluationRequest, runEvaluationJob } from './evaluation-job';
export { JobEvents } from './job-events';
export {
  type DrainResult,
  defaultWorkerId,
  heartbeatForLease,
  type JobEventListener,
  type JobHandler,
  type JobRunner,
  startJobRunner,
} from './job-runner';
export type { JobStore, StoredJob } from './job-store';
export { createJsonLogger, discardLines, type JsonLogger } from './json-logger';
export { openJobStore } from './open-job-store';
export { RedisJobStore } from './redis-job-store';
export { prepareRubricRequest, runRubricJob } from './rubric-job';
export { resolveServerJudge, type ServerJudge } from './server-judge';
export { SqliteJobStore } from './sqlite-job-store';
export { jobHandlers, type StartJobWorkerOptions, startJobWorker } from './start-job-worker';
export {
  cancelJob,
  removeStagedUpload,
  type SubmitJobRequest,
  submitJob,
  sweepStagedUploads,
} from './submit-job';
