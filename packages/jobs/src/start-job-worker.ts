import { type JudgeSettings, runEvaluationJob } from './evaluation-job';
import { type JobEventListener, type JobRunner, startJobRunner } from './job-runner';
import type { JobStore } from './job-store';
import { runRubricJob } from './rubric-job';
import { removeStagedUpload, sweepStagedUploads } from './submit-job';

export interface StartJobWorkerOptions extends JudgeSettings {
  store: JobStore;
  dataDir: string;
  /** Jobs run at once (`--workers`, default 2). */
  concurrency?: number;
  worker?: string;
  heartbeatMs?: number;
  log?: (line: string) => void;
  /** See `JobRunnerOptions.diskRetry`. */
  diskRetry?: { attempts: number; delayMs: number };
  /** Every stage event of every job (see `JobRunnerOptions.onEvent`). */
  onEvent?: JobEventListener;
}

/**
 * Runs the store's jobs in this process (what `xsb serve` does beside the HTTP server, and all that
 * `xsb worker` does): evaluations through @xsb/eval, rubric evaluations through @xsb/rubric, each
 * job's staged upload removed once it ended. Judges of all jobs share @xsb/llm's per-process limits
 * and the response cache.
 */
export function startJobWorker(options: StartJobWorkerOptions): JobRunner {
  const { dataDir } = options;
  void sweepStagedUploads(options.store, options.dataDir).catch(() => {});
  return startJobRunner({
    store: options.store,
    // The options are the judge settings (they extend `JudgeSettings`).
    handlers: {
      evaluation: (job, context) => runEvaluationJob(job, context, dataDir, options),
      rubric_evaluation: (job, context) => runRubricJob(job, context, dataDir, options),
    },
    concurrency: options.concurrency ?? 2,
    ...(options.worker ? { worker: options.worker } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.diskRetry ? { diskRetry: options.diskRetry } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    onFinished: (job) => removeStagedUpload(options.dataDir, job),
  });
}
