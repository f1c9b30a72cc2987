export { ApiDataLayout } from './api-data-layout';
export { JobEvents } from './job-events';
export {
  type DrainResult,
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
export { apiJobAcceptedSchema, apiJobListSchema, apiJobSchema, JOB_STATUSES } from './schemas/api-job';
export {
  apiErrorSchema,
  apiEvaluationRequestSchema,
  apiRubricEvaluationRequestSchema,
} from './schemas/api-request';
export { apiEvaluationResultSchema, apiRubricResultSchema, apiRunListSchema } from './schemas/api-result';
export { SqliteJobStore } from './sqlite-job-store';
export { startJobWorker } from './start-job-worker';
export { cancelJob, type SubmitJobRequest, submitJob } from './submit-job';
